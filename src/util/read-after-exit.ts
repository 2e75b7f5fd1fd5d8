/**
 * When to take and read a child's stdout and stderr pipes (git, hooks, Bash: issue 21).
 *
 * Bun 1.4.5 makes a pipe's ReadableStream when `proc.stdout` is first read, and what reading it costs depends on
 * when that was: taken while the child runs, a pipe that stays empty costs the JavaScript heap a 256 KiB buffer
 * anyway, and each read while it runs a fresh buffer of 64–256 KiB however few bytes came; taken after the child
 * exited, it gives what the child wrote as one buffer of that size, and an empty pipe costs nothing (Bun reads a
 * child's pipes into its own buffer whether JavaScript reads them or not). A hook's or git's two mostly empty pipes
 * cost 300–600 KiB, and in a three-turn run that brought on its one garbage collection (10–19 ms of CPU) in the
 * middle of the tool turns. A child still running after `ms` is read as it runs, as before, so what Bun holds for
 * it stays bounded by what it writes in that time.
 *
 * Resolves when `exited` settles or after `ms`, whichever comes first. Never rejects.
 */
export function readAfterExit(exited: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    exited.then(done, done);
  });
}
