/**
 * Control while the agent works, modes and commands in the interactive session (issue 12 points 3 and 5), driven
 * in tmux against the fake Anthropic API.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
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

async function session(script: FakeEntry[], o: { argv?: string[]; env?: Record<string, string>; columns?: number; rows?: number; cwd?: string; wait?: RegExp } = {}) {
  const fake = await startFakeAnthropic({ script });
  fakes.push(fake);
  const cwd = o.cwd ?? tempDir("yoke-tui-");
  // Memory runs by default in a terminal (issue 12 point 6); these tests script the main conversation only.
  const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_MEMORY_EXTRACTION: "0", YOKE_SESSION_MEMORY: "0", ...o.env });
  const term = startTerm({ argv: [bin, ...(o.argv ?? [])], env, cwd, columns: o.columns, rows: o.rows });
  open.push(term);
  await term.waitFor(o.wait ?? "context");
  return { fake, cwd, env, term };
}

const send = (term: Term, text: string) => {
  term.type(text);
  term.keys("Enter");
};

/** Every transcript line of the one session under the config dir. */
function transcriptLines(env: Record<string, string>): any[] {
  const root = join(env.YOKE_CONFIG_DIR!, "projects");
  const files = readdirSync(root, { recursive: true }).map(String).filter((f) => f.endsWith(".jsonl") && !f.includes("subagents"));
  expect(files.length).toBe(1);
  return readFileSync(join(root, files[0]!), "utf8").trim().split("\n").map((l) => JSON.parse(l));
}

const sessionId = (env: Record<string, string>) => transcriptLines(env).find((l) => l.sessionId)!.sessionId as string;

test("Esc during a long Bash stops it at once; the transcript records the interruption and the session goes on, and resumes in -p", async () => {
  const { fake, env, cwd, term } = await session(
    [
      { content: [{ type: "tool_use", name: "Bash", input: { command: "sleep 60", description: "wait a long time" } }] },
      { content: [{ type: "text", text: "ok, stopping there" }] },
    ],
    { argv: ["--allowedTools", "Bash"] },
  );
  send(term, "wait for it");
  await term.waitFor("Bash(sleep 60) running…");
  term.keys("Escape");
  await term.waitFor("Interrupted · tell yoke what to do instead");
  const lines = transcriptLines(env);
  const result = lines.find((l) => l.type === "user" && Array.isArray(l.message.content) && l.message.content[0]?.type === "tool_result");
  expect(result.message.content[0].is_error).toBe(true);
  // The next prompt goes out on a conversation the API accepts (every tool_use has its result).
  send(term, "never mind");
  await term.waitFor("ok, stopping there");
  expect(fake.rejected).toBe(0);
  term.keys("C-d");
  expect(await term.waitExit()).toBe(0);
  fake.push({ content: [{ type: "text", text: "resumed fine" }] });
  const r = await runYoke(["-p", "--resume", sessionId(env), "and now?"], { env, cwd });
  expect(r.stdout.trim()).toBe("resumed fine");
  expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain("never mind");
}, 60_000);

test("a message typed while the agent works is queued and reaches the model at its next step", async () => {
  let release!: () => void;
  const barrier = new Promise<void>((r) => (release = r));
  const { fake, term } = await session(
    [
      async () => {
        await barrier;
        return { content: [{ type: "tool_use", name: "Bash", input: { command: "echo step one" } }] };
      },
      { content: [{ type: "text", text: "adjusted as asked" }] },
    ],
    { argv: ["--allowedTools", "Bash"] },
  );
  send(term, "do the thing");
  await term.waitFor("esc to interrupt");
  send(term, "use the staging database instead");
  await term.waitFor("queued: use the staging database instead");
  release();
  await term.waitFor("adjusted as asked");
  const second = JSON.stringify(fake.requests[1]!.body.messages.at(-1));
  expect(second).toContain("use the staging database instead");
  expect(toolResultsOf(fake.requests[1]!)[0]!.text).toContain("step one");
  expect(term.screen()).not.toContain("queued:");
}, 60_000);

test("Shift+Tab cycles default → acceptEdits → plan → default, and in acceptEdits an edit runs without a prompt", async () => {
  const { fake, cwd, term } = await session([
    { content: [{ type: "tool_use", name: "Write", input: { file_path: "notes.md", content: "# notes\n" } }] },
    { content: [{ type: "text", text: "written" }] },
  ]);
  expect(term.screen()).toContain("default mode");
  term.keys("BTab");
  await term.waitFor("accept edits on", { where: "screen" });
  term.keys("BTab");
  await term.waitFor("plan mode on", { where: "screen" });
  term.keys("BTab");
  await term.waitFor("default mode", { where: "screen" });
  term.keys("BTab");
  await term.waitFor("accept edits on", { where: "screen" });
  send(term, "write notes");
  await term.waitFor("written");
  expect(term.history()).not.toContain("Allow Write?");
  expect(readFileSync(join(cwd, "notes.md"), "utf8")).toBe("# notes\n");
  expect(fake.unexpected).toBe(0);
}, 60_000);

test("/model switches the model of the next request; /context and /cost report; an unknown command suggests", async () => {
  const { fake, term } = await session([{ content: [{ type: "text", text: "first" }] }, { content: [{ type: "text", text: "second" }] }]);
  send(term, "hello");
  await term.waitFor("first");
  send(term, "/model claude-sonnet-4-5");
  await term.waitFor("Model set to claude-sonnet-4-5");
  await term.waitFor("claude-sonnet-4-5 ·", { where: "screen" });
  send(term, "again");
  await term.waitFor("second");
  expect(fake.requests[0]!.body.model).not.toBe("claude-sonnet-4-5");
  expect(fake.requests[1]!.body.model).toBe("claude-sonnet-4-5");
  send(term, "/context");
  await term.waitFor("Context (estimated tokens");
  expect(term.history()).toMatch(/\d+% of [\d,]+ tokens/);
  send(term, "/cost");
  await term.waitFor("Total cost: $");
  // With an argument, so the `/` menu (which Enter would accept) is not open over the mistyped name.
  send(term, "/contxt please");
  await term.waitFor("Unknown command /contxt. Did you mean /context?");
}, 60_000);

test("/compact summarises the conversation; the next request carries the summary, not the old turns", async () => {
  const { fake, term } = await session([
    { content: [{ type: "text", text: "the answer is 42" }] },
    { content: [{ type: "text", text: "reply two" }] },
    { content: [{ type: "text", text: "reply three" }] },
    { content: [{ type: "text", text: "Summary: the user asked a question; the answer was 42." }] },
    { content: [{ type: "text", text: "after compaction" }] },
  ]);
  send(term, "what is the answer?");
  await term.waitFor("the answer is 42");
  send(term, "second question");
  await term.waitFor("reply two");
  send(term, "third question");
  await term.waitFor("reply three");
  send(term, "/compact keep the number");
  await term.waitFor("Conversation compacted.");
  expect(JSON.stringify(fake.requests[3]!.body)).toContain("keep the number");
  send(term, "and then?");
  await term.waitFor("after compaction");
  const msgs = JSON.stringify(fake.requests[4]!.body.messages);
  expect(msgs).toContain("the answer was 42");
  expect(msgs).not.toContain("what is the answer?");
}, 60_000);

test("a resize re-flows the screen to the new width", async () => {
  const { term } = await session([], { columns: 100, rows: 30 });
  const border = (s: string) => s.split("\n").find((l) => /^─+$/.test(l))!;
  expect(border(term.screen()).length).toBe(100);
  term.resize(60, 20);
  await term.waitFor(/^─{60}$/m, { where: "screen" });
  expect(term.screen().split("\n").some((l) => l.length > 60)).toBe(false);
  send(term, "/exit");
  expect(await term.waitExit()).toBe(0);
}, 60_000);

test("Ctrl+C clears the input, twice exits; the session is saved", async () => {
  const { term, env } = await session([{ content: [{ type: "text", text: "hi" }] }]);
  send(term, "hello");
  // The answer on a line of its own ("hi" alone would match "shift+tab" in the status line before the turn ends).
  await term.waitFor(/^hi$/m);
  term.type("half a thought");
  await term.waitFor("half a thought", { where: "screen" });
  term.keys("C-c");
  await term.waitFor(/^(?![\s\S]*half a thought)/, { where: "screen" });
  term.keys("C-c");
  await term.waitFor("Press Ctrl+C again to exit");
  term.keys("C-c");
  expect(await term.waitExit()).toBe(0);
  expect(term.history()).toContain(`yoke --resume ${sessionId(env)}`);
}, 60_000);

test("bad terminals: TERM=dumb and a tiny window end with a message naming what to do; nothing is written", async () => {
  const dumb = startTerm({ argv: [bin], env: isolatedEnv({ TERM: "dumb", ANTHROPIC_API_KEY: "x" }), cwd: tempDir() });
  open.push(dumb);
  expect(await dumb.waitExit()).toBe(1);
  expect(dumb.history()).toContain("this terminal (TERM=dumb) cannot show the interactive session");
  const tinyEnv = isolatedEnv({ ANTHROPIC_API_KEY: "x" });
  const tiny = startTerm({ argv: [bin], env: tinyEnv, cwd: tempDir(), columns: 15, rows: 4 });
  open.push(tiny);
  expect(await tiny.waitExit()).toBe(1);
  expect(tiny.history().replace(/\n/g, "")).toContain("too small");
  expect(existsSync(join(tinyEnv.YOKE_CONFIG_DIR!, "projects"))).toBe(false);
  // No credentials: the screen goes away and the reason stays, exit 1.
  const nokey = startTerm({ argv: [bin], env: isolatedEnv({}), cwd: tempDir() });
  open.push(nokey);
  expect(await nokey.waitExit()).toBe(1);
  expect(nokey.history().replace(/\n/g, "")).toContain("no credentials: set ANTHROPIC_API_KEY");
}, 60_000);

test("rewind after two edits (Esc twice): code and conversation go back to before the second prompt", async () => {
  const { fake, cwd, term } = await session(
    [
      { content: [{ type: "tool_use", name: "Write", input: { file_path: "a.txt", content: "one\n" } }] },
      { content: [{ type: "text", text: "created" }] },
      { content: [{ type: "tool_use", name: "Edit", input: { file_path: "a.txt", old_string: "one", new_string: "two" } }] },
      { content: [{ type: "text", text: "edited" }] },
      { content: [{ type: "text", text: "fresh start" }] },
    ],
    { argv: ["--permission-mode", "acceptEdits"] },
  );
  send(term, "create a.txt");
  await term.waitFor("created");
  send(term, "change one to two");
  await term.waitFor("edited");
  expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("two\n");
  term.keys("Escape");
  await term.waitFor("Press Esc again to rewind", { where: "screen" });
  term.keys("Escape");
  const picker = await term.waitFor("Rewind to before which prompt?");
  expect(picker).toMatch(/→ change one to two/);
  term.keys("Enter");
  await term.waitFor("Code and conversation");
  term.keys("Enter");
  await term.waitFor("Conversation rewound");
  expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("one\n");
  // The prompt comes back into the input; a new one replaces it.
  await term.waitFor(/^change one to two$/m, { where: "screen" });
  term.keys("C-u");
  send(term, "something else");
  await term.waitFor("fresh start");
  const sent = JSON.stringify(fake.requests.at(-1)!.body.messages);
  expect(sent).toContain("create a.txt");
  expect(sent).not.toContain("change one to two");
  expect(fake.rejected).toBe(0);
}, 60_000);

test("a failing hook shows as a line in the session, not text over the screen; the turn goes on", async () => {
  const settings = { hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo 'lint config missing' >&2; exit 1" }] }] } };
  const { term } = await session([{ content: [{ type: "text", text: "answered anyway" }] }], { argv: ["--settings", JSON.stringify(settings)] });
  send(term, "go");
  await term.waitFor("answered anyway");
  const screen = await term.waitFor("lint config missing");
  const lines = screen.split("\n");
  // The status line is still the last line and the input box still has its borders.
  expect(lines.at(-1)).toMatch(/default mode \(shift\+tab\)/);
  expect(lines.filter((l) => /^─+$/.test(l)).length).toBe(2);
  // One report (not one from stderr and one from the event), indented, with no stray escape codes.
  expect(screen.split("non-blocking status code 1").length).toBe(2);
  expect(lines.find((l) => l.includes("UserPromptSubmit"))).toMatch(/^  yoke: \[UserPromptSubmit\]/);
}, 60_000);

test("the settings statusLine command runs with the session's JSON and its output replaces the status line", async () => {
  const cmd = `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log("SL " + j.model.id + " " + j.context_window.context_window_size + " cols=" + process.env.COLUMNS)})'`;
  const hasNode = Bun.which("node") !== null;
  const command = hasNode ? cmd : `read x; echo "SL $x" | cut -c1-40`;
  // The default status line shows only until the command's output replaces it: a loaded machine can miss that window.
  const { term } = await session([], { argv: ["--settings", JSON.stringify({ statusLine: { type: "command", command } })], wait: /^SL /m });
  const screen = await term.waitFor(/^SL /m, { where: "screen" });
  if (hasNode) expect(screen).toMatch(/^SL claude-\S+ \d+ cols=100$/m);
  expect(screen.split("\n").at(-1)).toMatch(/^SL /);
  term.keys("BTab");
  await term.waitFor(/^accept edits on \(shift\+tab\)$/m, { where: "screen" });
}, 60_000);

test("!cmd runs now and its output, and @file contents, go to the model with the next prompt; a denied file is not attached", async () => {
  const cwd = tempDir("yoke-tui-");
  writeFileSync(join(cwd, "notes.txt"), "the launch code is blue\n");
  writeFileSync(join(cwd, ".env"), "SECRET=hunter2\n");
  const { fake, term } = await session([{ content: [{ type: "text", text: "got both" }] }], {
    cwd,
    argv: ["--settings", JSON.stringify({ permissions: { deny: ["Read(.env)"] } })],
  });
  send(term, "!echo hello-from-shell");
  await term.waitFor(/^  hello-from-shell$/m);
  expect(fake.requests.length).toBe(0);
  send(term, "compare with @notes.txt and @.env please");
  await term.waitFor("got both");
  await term.waitFor("not attached");
  const sent = JSON.stringify(fake.requests[0]!.body.messages);
  expect(sent).toContain("<bash-input>echo hello-from-shell</bash-input>");
  expect(sent).toContain("<bash-stdout>hello-from-shell");
  expect(sent).toContain("the launch code is blue");
  expect(sent).not.toContain("hunter2");
}, 60_000);

test("/memory opens the chosen CLAUDE.md in $EDITOR and the screen comes back whole", async () => {
  const cwd = tempDir("yoke-tui-");
  const editor = join(tempDir("yoke-editor-"), "edit.sh");
  writeFileSync(editor, '#!/bin/sh\necho "- indent with tabs" >> "$1"\n', { mode: 0o755 });
  const { term } = await session([], { cwd, env: { EDITOR: editor } });
  send(term, "/memory");
  await term.waitFor("Open which memory file?");
  term.keys("Enter"); // Project memory
  await term.waitFor("it applies from the next session on");
  expect(readFileSync(join(cwd, "CLAUDE.md"), "utf8")).toBe("- indent with tabs\n");
  const screen = await term.waitFor(/default mode \(shift\+tab\)/, { where: "screen" });
  expect(screen.split("\n").at(-1)).toMatch(/default mode/);
}, 60_000);

test("Ctrl+O expands every tool line with its output, and again folds it back to one line", async () => {
  const { term } = await session(
    [{ content: [{ type: "tool_use", name: "Bash", input: { command: "printf 'alpha-out\\nbeta-out\\n'" } }] }, { content: [{ type: "text", text: "listed" }] }],
    { argv: ["--allowedTools", "Bash"] },
  );
  send(term, "run it");
  await term.waitFor("listed");
  expect(term.screen()).not.toMatch(/^    beta-out$/m);
  term.keys("C-o");
  await term.waitFor(/^    alpha-out\n    beta-out$/m, { where: "screen" });
  term.keys("C-o");
  await term.waitFor(/^(?![\s\S]*\n {4}beta-out(\n|$))/, { where: "screen" });
}, 60_000);

test("a running Bash command shows the tail of its output as it comes; Esc stops it", async () => {
  const cwd = tempDir("yoke-tui-");
  const { term } = await session(
    [{ content: [{ type: "tool_use", name: "Bash", input: { command: "echo first-line; echo second-line; sleep 60" } }] }, { content: [{ type: "text", text: "stopped" }] }],
    { cwd, argv: ["--allowedTools", "Bash"] },
  );
  send(term, "run the long thing");
  const live = await term.waitFor(/running…\n {4}first-line\n {4}second-line/, { where: "screen" });
  expect(live).toContain("esc to interrupt");
  term.keys("Escape");
  await term.waitFor("Interrupted");
}, 60_000);

test("the terminal session fires SessionStart, InstructionsLoaded, then UserPromptSubmit (contracts §1.9), as -p does", async () => {
  const cwd = tempDir("yoke-tui-");
  writeFileSync(join(cwd, "CLAUDE.md"), "Project rule: tabs.\n");
  const log = (tag: string) => [{ hooks: [{ type: "command", command: `echo ${tag} >> "${join(cwd, "order.txt")}"` }] }];
  const settings = { hooks: { SessionStart: log("ss"), InstructionsLoaded: log("il"), UserPromptSubmit: log("ups") } };
  const { fake, term } = await session([{ content: [{ type: "text", text: "ordered answer" }] }], { cwd, argv: ["--settings", JSON.stringify(settings)] });
  send(term, "go");
  await term.waitFor("ordered answer");
  expect(readFileSync(join(cwd, "order.txt"), "utf8")).toBe("ss\nil\nups\n");
  expect(JSON.stringify(fake.requests[0]?.body ?? {})).toContain("Project rule: tabs.");
}, 60_000);
