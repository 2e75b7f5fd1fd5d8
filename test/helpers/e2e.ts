/**
 * The setup end-to-end files repeated: the compiled binary built once, a fake Anthropic API started before and
 * stopped after.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { yokeBin } from "./binary.ts";
import { startFakeAnthropic, type FakeAnthropic, type FakeAnthropicOptions } from "./fake-anthropic.ts";

/**
 * Registers the hooks and returns the fake as a stand-in that reaches whichever fake is running, so a file
 * writes `const fake = useFakeAnthropic()` and uses `fake` as before. `perTest` starts a fresh fake for each
 * test: a reply one test queued and did not use cannot reach the next. Touching it outside a test throws.
 */
export function useFakeAnthropic(o: { perTest?: boolean } & FakeAnthropicOptions = {}): FakeAnthropic {
  const { perTest, ...opts } = o;
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

/** The transcript file of session `id` under the run's YOKE_CONFIG_DIR (whichever project folder holds it). */
export function sessionFile(env: Record<string, string>, id: string): string {
  const projects = join(env.YOKE_CONFIG_DIR!, "projects");
  for (const d of readdirSync(projects)) {
    const p = join(projects, d, `${id}.jsonl`);
    if (existsSync(p)) return p;
  }
  throw new Error(`no transcript for ${id} under ${projects}`);
}
