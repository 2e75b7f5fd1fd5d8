import type { Provider } from "../provider/types.ts";

/**
 * The provider, with `fn` run once as the first request leaves (issue 21: nothing the first request does not need
 * runs before it). Housekeeping such as the temp sweep then shares the model's time to answer instead of the
 * start's. `fn` must not throw; it runs on a later tick, after the request was handed to the network.
 */
export function afterFirstRequest(provider: Provider, fn: () => void): Provider {
  let started = false;
  return {
    ...provider,
    async *stream(req, signal) {
      if (!started) {
        started = true;
        setTimeout(fn, 0);
      }
      yield* provider.stream(req, signal);
    },
  };
}
