/**
 * The interactive session driven as a person drives it (issue 12 point 8): the compiled binary in a real
 * pseudo-terminal (tmux), keys typed, screens read back as text, against the fake Anthropic API over HTTP.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke, yokeBin } from "../helpers/binary.ts";
import { fakeApiEnv, startFakeAnthropic, toolResultsOf, type FakeAnthropic, type FakeEntry } from "../helpers/fake-anthropic.ts";
import { startTerm, type Term } from "../helpers/tmux.ts";
import { tempDir } from "../helpers/tmp.ts";

let bin: string;
const open: Term[] = [];
const fakes: FakeAnthropic[] = [];
beforeAll(() => {
  bin = yokeBin();
});
afterAll(async () => {
  for (const t of open) t.kill();
  for (const f of fakes) await f.stop();
});

async function session(script: FakeEntry[], o: { argv?: string[]; env?: Record<string, string>; columns?: number; rows?: number } = {}) {
  const fake = await startFakeAnthropic({ script });
  fakes.push(fake);
  const cwd = tempDir("yoke-tui-");
  const env = isolatedEnv({ ...fakeApiEnv(fake), ...o.env });
  const term = startTerm({ argv: [bin, ...(o.argv ?? [])], env, cwd, columns: o.columns, rows: o.rows });
  open.push(term);
  return { fake, cwd, env, term };
}

/** The session id from the line printed after the session ends. */
const resumeId = (screen: string) => /yoke --resume ([0-9a-f-]{36})/.exec(screen)?.[1];

test("a task that writes a file after a permission prompt answered yes; /exit; the transcript resumes in -p", async () => {
  const { fake, cwd, env, term } = await session([
    { content: [{ type: "tool_use", name: "Write", input: { file_path: "hello.txt", content: "hi there\n" } }] },
    { content: [{ type: "text", text: "I wrote **hello.txt**." }] },
  ]);
  await term.waitFor("context");
  term.type("write hello.txt");
  term.keys("Enter");
  const ask = await term.waitFor("Allow Write?");
  expect(ask).toContain("+hi there");
  expect(ask).toContain("No, and tell yoke what to do instead");
  term.keys("Enter"); // the first choice: Yes
  await term.waitFor("I wrote hello.txt.");
  expect(readFileSync(join(cwd, "hello.txt"), "utf8")).toBe("hi there\n");
  expect(term.screen()).toMatch(/● Write\(hello\.txt\)/);
  term.type("/exit");
  term.keys("Enter");
  expect(await term.waitExit()).toBe(0);
  const id = resumeId(term.history());
  expect(id).toBeDefined();

  fake.push({ content: [{ type: "text", text: "still here" }] });
  const r = await runYoke(["-p", "--resume", id!, "what did you write?"], { env, cwd });
  expect(r.stdout.trim()).toBe("still here");
  const last = fake.requests.at(-1)!.body.messages as Array<{ role: string; content: unknown }>;
  expect(JSON.stringify(last)).toContain("write hello.txt");
  expect(JSON.stringify(last)).toContain("I wrote **hello.txt**.");
  expect(fake.unexpected).toBe(0);
}, 60_000);

test("no, with feedback: the model is told what to do instead, and nothing is written", async () => {
  const { fake, cwd, term } = await session([
    { content: [{ type: "tool_use", name: "Bash", input: { command: "rm -rf build", description: "Remove the build folder" } }] },
    { content: [{ type: "text", text: "Understood, I will not delete it." }] },
  ]);
  await term.waitFor("context");
  term.type("clean up");
  term.keys("Enter");
  await term.waitFor("Allow Bash?");
  term.keys("Down", "Down", "Enter"); // No, and tell yoke what to do instead
  await term.waitFor("What should yoke do instead?");
  term.type("keep the build folder, only remove dist");
  term.keys("Enter");
  await term.waitFor("Understood, I will not delete it.");
  const results = toolResultsOf(fake.requests[1]!);
  expect(results[0]!.is_error).toBe(true);
  expect(results[0]!.text).toContain("keep the build folder, only remove dist");
  expect(existsSync(join(cwd, "build"))).toBe(false);
}, 60_000);
