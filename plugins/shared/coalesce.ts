/**
 * Runs `work` once per burst of requests: a request while a run is going marks one trailing run, which
 * starts when the current one ends (later requests fold into it). The returned promise settles when the
 * run that covers this request has finished. Never rejects: `work` errors go to `onError`.
 */
export function createCoalescer(work: () => Promise<void>, onError: (err: unknown) => void) {
  let running: Promise<void> | null = null;
  let again = false;
  const loop = async () => {
    try {
      do {
        again = false;
        try {
          await work();
        } catch (err) {
          onError(err);
        }
      } while (again);
    } finally {
      running = null;
    }
  };
  return {
    request(): Promise<void> {
      if (running) {
        again = true;
        return running;
      }
      running = loop();
      return running;
    },
    /** The run in progress, if any. */
    current: (): Promise<void> | null => running,
  };
}
