/**
 * YOKE_TIMING=1: a numbered phase mark (`yoke:<name>-1`, `-2`, ...) for what happens more than once in a run (tool
 * calls, hook processes, requests), so a multi-turn run shows where each turn's time went (issue 21). The first
 * MAX of each name only, so a long session adds none past them; nothing at all without YOKE_TIMING.
 */
const on = process.env.YOKE_TIMING === "1";
const MAX = 8;
const counts = new Map<string, number>();

export function markEach(name: string): void {
  if (!on) return;
  const n = (counts.get(name) ?? 0) + 1;
  counts.set(name, n);
  if (n <= MAX) performance.mark(`yoke:${name}-${n}`);
}
