/**
 * The compiled binary starts with JavaScriptCore's JIT held back (build.ts: compile.jitPolicy): a start runs thousands
 * of functions a few times each, and compiling them costs more CPU and memory than it saves (issue 21, measured with
 * bench/: a one-turn run's peak RSS −5 MiB and CPU −30%). Once the work that repeats begins (after the first model
 * answer, in the interactive screen, in a subcommand, or after a few seconds whatever happens) the normal policy
 * comes back. A source run (`bun src/main.ts`) starts with the normal policy: releasing it there changes nothing.
 */
let released = false;

/** Back to the normal JIT policy; idempotent. */
export function releaseJit(): void {
  if (released) return;
  released = true;
  Bun.unsafe.setJITPolicy(1);
}

/** Releases it after `ms` at the latest, without keeping the process alive for it. */
export function releaseJitAfter(ms: number): void {
  if (!released) setTimeout(releaseJit, ms).unref();
}
