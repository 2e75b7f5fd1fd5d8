/**
 * The one way tests wait (issue 11 points 6 and 8): for a condition, polled, or for a barrier that opens when
 * every party has arrived. Neither asserts on elapsed time: the timeout only turns a hang into a clear failure
 * naming what never happened.
 */

/**
 * The default limit for every wait: long enough that only a hang reaches it, even with both cores busy (5 s was
 * reached by slow but healthy children under load). A test waiting this long needs a per-test timeout above it.
 */
export const WAIT_MS = 30_000;

/** Resolves with the condition's first truthy value; rejects naming `what` after `timeoutMs` (default WAIT_MS). */
export async function waitFor<T>(cond: () => T | Promise<T>, what: string, timeoutMs = WAIT_MS): Promise<NonNullable<T>> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const v = await cond();
    if (v) return v as NonNullable<T>;
    if (performance.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(10);
  }
}

/**
 * A barrier for `parties` callers: `arrive()` resolves once all of them have arrived, so work that must run
 * concurrently proves it by getting through (run one after another, the first would wait alone). After
 * `timeoutMs` an arrival rejects naming who came, instead of hanging the test.
 */
export function barrier(parties: number, timeoutMs = WAIT_MS) {
  const arrived: string[] = [];
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return {
    arrived,
    async arrive(who: string): Promise<void> {
      arrived.push(who);
      if (arrived.length >= parties) open();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`barrier: only ${arrived.join(", ")} of ${parties} arrived`)), timeoutMs);
      });
      try {
        await Promise.race([opened, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
