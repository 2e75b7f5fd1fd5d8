import { redactTokens } from "../../src/util/redact.ts";

/** `password: hunter22`-style pairs: the name stays so the memory still reads sensibly. */
const SECRET_PAIR = /\b(password|passwd|secret|token|api[_-]?key)(\s*[:=]\s*)["']?[^\s"']{6,}["']?/gi;

/** Replaces credential-shaped text with [REDACTED]. Pure; returns how many were replaced. */
export function redactSecrets(text: string): { text: string; count: number } {
  const tokens = redactTokens(text);
  let count = tokens.count;
  let out = tokens.text;
  out = out.replace(SECRET_PAIR, (_m, key: string, sep: string) => {
    count++;
    return `${key}${sep}[REDACTED]`;
  });
  return { text: out, count };
}
