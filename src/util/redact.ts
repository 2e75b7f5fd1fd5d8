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

/** `password: hunter22`-style pairs: the name stays so the text still reads sensibly. */
const SECRET_PAIR = /\b(password|passwd|secret|token|api[_-]?key)(\s*[:=]\s*)["']?[^\s"']{6,}["']?/gi;

/**
 * redactTokens plus `name: value` pairs whose name says secret (for text a model wrote, such as memory
 * files and notes, where a pair is more likely than in code). Pure; returns how many were replaced.
 */
export function redactSecrets(text: string): { text: string; count: number } {
  const tokens = redactTokens(text);
  let count = tokens.count;
  const out = tokens.text.replace(SECRET_PAIR, (_m, key: string, sep: string) => {
    count++;
    return `${key}${sep}[REDACTED]`;
  });
  return { text: out, count };
}
