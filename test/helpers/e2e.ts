/**
 * The setup end-to-end files repeated: the compiled binary built once, a fake Anthropic API started before and
 * stopped after.
 */
import { afterAll, afterEach, beforeAll, beforeEach, setDefaultTimeout } from "bun:test";
import { yokeBin } from "./binary.ts";
import { startFakeAnthropic, type FakeAnthropic, type FakeAnthropicOptions } from "./fake-anthropic.ts";

/**
 * Per-test budget of an e2e file. Bun's default is 5 s whatever bunfig says (its `[test] timeout` is not read), and a
 * test that starts the binary several times needs more on a loaded 2-core machine; nothing here times anything.
 */
export const E2E_TEST_TIMEOUT_MS = 30_000;

/**
 * Registers the hooks and returns the fake as a stand-in that reaches whichever fake is running, so a file
 * writes `const fake = useFakeAnthropic()` and uses `fake` as before. `perTest` starts a fresh fake for each
 * test: a reply one test queued and did not use cannot reach the next. Touching it outside a test throws. Sets the
 * file's test timeout to E2E_TEST_TIMEOUT_MS.
 */
export function useFakeAnthropic(o: { perTest?: boolean } & FakeAnthropicOptions = {}): FakeAnthropic {
  const { perTest, ...opts } = o;
  setDefaultTimeout(E2E_TEST_TIMEOUT_MS);
  let current: FakeAnthropic | undefined;
  const start = async () => void (current = await startFakeAnthropic(opts));
  const stop = async () => {
    await current?.stop();
    current = undefined;
  };
  beforeAll(() => void yokeBin());
  if (perTest) {
    beforeEach(start);
    afterEach(stop);
  } else {
    beforeAll(start);
    afterAll(stop);
  }
  return new Proxy({} as FakeAnthropic, {
    get(_, key) {
      if (!current) throw new Error(`the fake Anthropic API is not running here (fake.${String(key)} outside a test?)`);
      const v = Reflect.get(current, key, current);
      return typeof v === "function" ? v.bind(current) : v;
    },
  });
}
