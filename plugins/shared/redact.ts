/** Credential shapes that must never land in a memory file (user-demand §20). */
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
/** `password: hunter22`-style pairs: the name stays so the memory still reads sensibly. */
const SECRET_PAIR = /\b(password|passwd|secret|token|api[_-]?key)(\s*[:=]\s*)["']?[^\s"']{6,}["']?/gi;

/** Replaces credential-shaped text with [REDACTED]. Pure; returns how many were replaced. */
export function redactSecrets(text: string): { text: string; count: number } {
  let count = 0;
  let out = text;
  for (const re of SECRET_PATTERNS)
    out = out.replace(re, () => {
      count++;
      return "[REDACTED]";
    });
  out = out.replace(SECRET_PAIR, (_m, key: string, sep: string) => {
    count++;
    return `${key}${sep}[REDACTED]`;
  });
  return { text: out, count };
}
