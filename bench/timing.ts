/** The `YOKE_TIMING=1` stderr line (src/main.ts) read back: phase → ms since process start. Pure; {} when absent. */
export function parseTiming(stderr: string): Record<string, number> {
  return parseLine(stderr, "yoke timing (ms since start):");
}

/** The `YOKE_TIMING=1` CPU line read back: phase → ms of CPU time (user + system) yoke's own process had used. */
export function parseCpu(stderr: string): Record<string, number> {
  return parseLine(stderr, "yoke cpu (ms of this process):");
}

function parseLine(stderr: string, head: string): Record<string, number> {
  const line = stderr.split("\n").find((l) => l.startsWith(head));
  if (!line) return {};
  const out: Record<string, number> = {};
  for (const m of line.slice(head.length).matchAll(/([\w-]+)=([\d.]+)/g)) out[m[1]!] = Number(m[2]);
  return out;
}
