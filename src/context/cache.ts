import { statSync } from "node:fs";
import { type DiscoverOptions, discoverInstructions } from "./instructions.ts";
import type { InstructionSet } from "./types.ts";

export type InstructionCache = {
  /** The cached set, rediscovered when any file it depends on appeared, vanished or changed mtime. Never throws. */
  get(): InstructionSet;
  /** Forget everything, including which nested files were attached (after compaction, they reattach on the next read). */
  invalidate(): void;
  /** True when the last get() had to rediscover. */
  readonly rebuilt: boolean;
};

const mtimeOf = (p: string) => {
  try {
    return statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  } catch {
    return -1;
  }
};

/** Discovery once per session, re-checked with one stat per probed path on each get(). */
export function createInstructionCache(opts: Omit<DiscoverOptions, "probes" | "attached">): InstructionCache {
  let set: InstructionSet | null = null;
  let stamps: Array<[string, number]> = [];
  let attached = new Set<string>();
  let rebuilt = false;
  const build = () => {
    const probes = new Set<string>();
    set = discoverInstructions({ ...opts, probes, attached });
    stamps = [...probes].map((p) => [p, mtimeOf(p)]);
    return set;
  };
  return {
    get() {
      rebuilt = !set || stamps.some(([p, m]) => mtimeOf(p) !== m);
      return rebuilt || !set ? build() : set;
    },
    invalidate() {
      set = null;
      attached = new Set();
    },
    get rebuilt() {
      return rebuilt;
    },
  };
}
