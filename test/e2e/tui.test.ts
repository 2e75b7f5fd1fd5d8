/**
 * The interactive session driven as a person drives it (issue 12 point 8): the compiled binary in a real
 * pseudo-terminal (tmux), keys typed, screens read back as text, against the fake Anthropic API over HTTP.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke, yokeBin } from "../helpers/binary.ts";
import { EXTRACTION_MARKER } from "../../plugins/memory-extraction/index.ts";
import { fakeApiEnv, startFakeAnthropic, toolResultsOf, type FakeAnthropic, type FakeEntry, type LoggedRequest } from "../helpers/fake-anthropic.ts";
import { memDirOf as memDir } from "./memory-helpers.ts";
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
  // Memory runs by default in a terminal (issue 12 point 6); these tests script the main conversation only.
  const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_MEMORY_EXTRACTION: "0", YOKE_SESSION_MEMORY: "0", ...o.env });
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

test("AskUserQuestion shows its options and the chosen one goes back to the model", async () => {
  const { fake, term } = await session([
    {
      content: [
        {
          type: "tool_use",
          name: "AskUserQuestion",
          input: {
            questions: [
              {
                question: "Which database should I use?",
                header: "Database",
                multiSelect: false,
                options: [
                  { label: "SQLite", description: "a file, no server" },
                  { label: "Postgres", description: "the team's server" },
                ],
              },
            ],
          },
        },
      ],
    },
    { content: [{ type: "text", text: "Postgres it is." }] },
  ]);
  await term.waitFor("context");
  term.type("set up storage");
  term.keys("Enter");
  const q = await term.waitFor("Which database should I use?");
  expect(q).toContain("SQLite");
  expect(q).toContain("Other…");
  term.keys("Down", "Enter");
  await term.waitFor("Postgres it is.");
  const r = toolResultsOf(fake.requests[1]!)[0]!;
  expect(r.is_error).toBe(false);
  expect(r.text).toContain('"Which database should I use?" → Postgres');
}, 60_000);

test("ExitPlanMode shows the plan and asks to proceed; yes with accept-edits switches the mode and the work goes on", async () => {
  const { fake, cwd, term } = await session(
    [
      { content: [{ type: "tool_use", name: "ExitPlanMode", input: { plan: "1. Create **todo.txt**\n2. Stop" } }] },
      { content: [{ type: "tool_use", name: "Write", input: { file_path: "todo.txt", content: "buy milk\n" } }] },
      { content: [{ type: "text", text: "Plan carried out." }] },
    ],
    { argv: ["--permission-mode", "plan"] },
  );
  await term.waitFor("plan mode on");
  term.type("make a todo file");
  term.keys("Enter");
  const plan = await term.waitFor("Proceed with this plan?");
  expect(plan).toContain("Create todo.txt");
  expect(plan).toContain("No, keep planning");
  term.keys("Enter"); // Yes, and accept edits without asking
  await term.waitFor("Plan carried out.");
  await term.waitFor("accept edits on", { where: "screen" });
  expect(readFileSync(join(cwd, "todo.txt"), "utf8")).toBe("buy milk\n");
  expect(term.history()).not.toContain("Allow Write?");
  expect(JSON.stringify(fake.requests[1]!.body.messages.at(-1))).toContain("The plan is approved");
}, 60_000);

test('`yoke "task"` starts on the task at once; --resume without an id picks from this folder\'s sessions', async () => {
  const { fake, cwd, env, term } = await session([{ content: [{ type: "text", text: "started right away" }] }], { argv: ["count the files"] });
  await term.waitFor("started right away");
  expect(JSON.stringify(fake.requests[0]!.body.messages)).toContain("count the files");
  term.keys("C-d");
  expect(await term.waitExit()).toBe(0);

  fake.push({ content: [{ type: "text", text: "picked up again" }] });
  const picker = startTerm({ argv: [bin, "--resume"], env, cwd });
  open.push(picker);
  const list = await picker.waitFor("Resume which session?");
  expect(list).toContain("count the files");
  picker.keys("Enter");
  await picker.waitFor("context");
  picker.type("and the folders?");
  picker.keys("Enter");
  await picker.waitFor("picked up again");
  const sent = JSON.stringify(fake.requests[1]!.body.messages);
  expect(sent).toContain("count the files");
  expect(sent).toContain("started right away");
}, 60_000);

test("memory extraction runs by default in a terminal and says so on screen (the same run in -p does not)", async () => {
  const isExtraction = (req: LoggedRequest) => (req.body.system ?? []).map((b: any) => b.text).join("\n").startsWith(EXTRACTION_MARKER);
  const { fake, cwd, env, term } = await session(
    [
      { content: [{ type: "text", text: "Understood: tabs from now on." }] },
      (req) => {
        if (!isExtraction(req)) throw new Error("expected the extraction fork");
        const dir = memDir(env, cwd);
        return {
          content: [
            { type: "tool_use", name: "Write", input: { file_path: join(dir, "tabs.md"), content: "---\nname: tabs\ndescription: indent with tabs\ntype: feedback\n---\nTabs.\n" } },
            { type: "tool_use", name: "Write", input: { file_path: join(dir, "MEMORY.md"), content: "- [Tabs](tabs.md) — indentation\n" } },
          ],
        };
      },
      { content: [{ type: "text", text: "saved" }] },
    ],
    { env: { YOKE_MEMORY_EXTRACTION: "", YOKE_SESSION_MEMORY: "0" } },
  );
  await term.waitFor("context");
  term.type("always indent with tabs");
  term.keys("Enter");
  await term.waitFor("Memory updated: tabs.md");
  expect(readFileSync(join(memDir(env, cwd), "tabs.md"), "utf8")).toContain("Tabs.");
  term.keys("C-d");
  expect(await term.waitExit()).toBe(0);
  expect(fake.unexpected).toBe(0);
  expect(fake.pending).toBe(0);
  // -p keeps today's default: no extraction request after the answer.
  // (The first "ok" answers the relevant-memory side query, now that a memory exists.)
  fake.push({ content: [{ type: "text", text: "ok" }] }, { content: [{ type: "text", text: "ok" }] });
  const before = fake.requests.length;
  const r = await runYoke(["-p", "another preference: 80 columns"], { env: { ...env, YOKE_MEMORY_EXTRACTION: undefined }, cwd });
  expect(r.stdout.trim()).toBe("ok");
  expect(fake.requests.slice(before).some(isExtraction)).toBe(false);
  expect(fake.unexpected).toBe(0);
}, 60_000);

test("an API retry shows as it happens, then the answer; a long paste is folded into one line and sent whole", async () => {
  const { fake, term } = await session([{ fault: 529 }, { content: [{ type: "text", text: "through on the second try" }] }, { content: [{ type: "text", text: "pasted ok" }] }], {
    env: { YOKE_RETRY_BASE_MS: "1" },
  });
  await term.waitFor("context");
  term.type("hello");
  term.keys("Enter");
  await term.waitFor("through on the second try");
  expect(term.history()).toMatch(/API error \(529 overloaded\S*\).*retry 1 of \d+/);
  // A bracketed paste of 30 lines shows as one marker line in the input.
  const text = Array.from({ length: 30 }, (_, i) => `pasted line ${i}`).join("\n");
  term.paste(text);
  const input = await term.waitFor(/\[paste #\d+ \+?30 lines\]/, { where: "screen" });
  expect(input).not.toContain("pasted line 29");
  term.keys("Enter");
  await term.waitFor("pasted ok");
  const sent = JSON.stringify(fake.requests.at(-1)!.body.messages.at(-1));
  expect(sent).toContain("pasted line 0");
  expect(sent).toContain("pasted line 29");
}, 60_000);

test("--continue picks up this folder's latest session; with --fork-session it goes on under a new id", async () => {
  const { fake, cwd, env, term } = await session([{ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] }, { content: [{ type: "text", text: "three" }] }]);
  await term.waitFor("context");
  term.type("remember the word kiwi");
  term.keys("Enter");
  await term.waitFor("one");
  term.keys("C-d");
  expect(await term.waitExit()).toBe(0);
  const first = resumeId(term.history())!;

  const cont = startTerm({ argv: [bin, "--continue"], env, cwd });
  open.push(cont);
  await cont.waitFor("context");
  cont.type("what was the word?");
  cont.keys("Enter");
  await cont.waitFor("two");
  expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain("remember the word kiwi");
  cont.keys("C-d");
  expect(await cont.waitExit()).toBe(0);
  expect(resumeId(cont.history())).toBe(first);

  const fork = startTerm({ argv: [bin, "--continue", "--fork-session"], env, cwd });
  open.push(fork);
  await fork.waitFor("context");
  fork.type("and now?");
  fork.keys("Enter");
  await fork.waitFor("three");
  expect(JSON.stringify(fake.requests[2]!.body.messages)).toContain("what was the word?");
  fork.keys("C-d");
  expect(await fork.waitExit()).toBe(0);
  expect(resumeId(fork.history())).not.toBe(first);
}, 60_000);
