/**
 * The compiled binary starts with JavaScriptCore's JIT held back (build.ts: compile.jitPolicy): a start runs thousands
 * of functions a few times each, and compiling them costs more CPU and memory than it saves (issue 21, measured with
 * bench/: a one-turn run's peak RSS −5 MiB and CPU −30%). Once the work that repeats begins (in the interactive
 * screen, in a subcommand, or 3 s after the model's SDK loaded, whatever happens) the normal policy comes back. Not at
 * the first model answer: a headless run's tool turns right after it are more of the same start-up work, and held
 * back they cost less (issue 21, three-turn run A/B: own CPU from the first answer to exit −16 ms, 9 runs each).
 * A source run (`bun src/main.ts`) starts with the normal policy: releasing it there changes nothing.
 */
let released = false;

/** Back to the normal JIT policy; idempotent. */
export function releaseJit(): void {
  if (released) return;
  released = true;
  // Optional call: a Bun of the supported range without the call (before 1.4.5) has nothing held back to release.
  Bun.unsafe.setJITPolicy?.(1);
}

/** Releases it after `ms` at the latest, without keeping the process alive for it. */
export function releaseJitAfter(ms: number): void {
  if (!released) setTimeout(releaseJit, ms).unref();
}
