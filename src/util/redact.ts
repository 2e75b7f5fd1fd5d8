/**
 * Credential shapes that must not be written to disk (user-demand #20): private keys and tokens whose form
 * identifies them. Only shapes with a low false-positive rate belong here: transcripts hold code and logs.
 */
const SECRET_PATTERNS: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bsk-ant-[A-Za-z0-9_-]{10,}/g,
  /\bsk-[A-Za-z0-9_-]{20,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
];

/** Replaces credential-shaped text with [REDACTED]. Pure; returns how many were replaced. */
export function redactTokens(text: string): { text: string; count: number } {
  let count = 0;
  let out = text;
  for (const re of SECRET_PATTERNS)
    out = out.replace(re, () => {
      count++;
      return "[REDACTED]";
    });
  return { text: out, count };
}

/** JSON.stringify with every string value passed through redactTokens, so the JSON stays valid. */
export function stringifyRedacted(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === "string" && v.length >= 20 ? redactTokens(v).text : v));
}
