/** The `YOKE_TIMING=1` stderr line (src/main.ts) read back: phase → ms since process start. Pure; {} when absent. */
export function parseTiming(stderr: string): Record<string, number> {
  const line = stderr.split("\n").find((l) => l.startsWith("yoke timing (ms since start):"));
  if (!line) return {};
  const out: Record<string, number> = {};
  for (const m of line.matchAll(/([\w-]+)=([\d.]+)/g)) out[m[1]!] = Number(m[2]);
  return out;
}
