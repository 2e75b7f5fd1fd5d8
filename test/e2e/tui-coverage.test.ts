/**
 * Issue 12 points that had no end-to-end test in the compiled binary: "yes, and don't ask again" (point 4), `--model`
 * and `--permission-mode` at the terminal and Shift+Tab reaching bypassPermissions only when started with it
 * (points 1, 3), `\` + Enter for a new line and prompt history kept per project across sessions (point 2), and the
 * built-in commands not driven elsewhere (point 5): /clear, /effort, /permissions, /hooks, /agents, /plugins,
 * /status, /usage, /resume, /init.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TRUST_WORKSPACE } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { lastUserTexts, send, tuiSuite } from "./tui-helpers.ts";

const session = tuiSuite();
const say = (text: string) => ({ content: [{ type: "text" as const, text }] });
const write = (file: string, content: string) => ({ content: [{ type: "tool_use" as const, name: "Write", input: { file_path: file, content } }] });

test("yes, and don't ask again: the rule is saved to .claude/settings.local.json and the next matching call runs without a prompt", async () => {
  const { cwd, term, fake } = await session([write("a.txt", "A\n"), say("first done"), write("b.txt", "B\n"), say("second done")]);
  send(term, "write a");
  await term.waitFor("Allow Write?");
  const ask = await term.waitFor("Yes, and don't ask again for");
  const rule = /don't ask again for (\S+)/.exec(ask)![1]!;
  term.keys("Down", "Enter");
  await term.waitFor("first done");
  expect(term.history()).toContain(`Rule ${rule} saved to .claude/settings.local.json`);
  const saved = JSON.parse(readFileSync(join(cwd, ".claude", "settings.local.json"), "utf8"));
  expect(saved.permissions.allow).toContain(rule);
  send(term, "write b");
  await term.waitFor("second done");
  // A second prompt would have held the turn: "second done" arrived without an answer.
  expect(readFileSync(join(cwd, "b.txt"), "utf8")).toBe("B\n");
  expect(fake.unexpected).toBe(0);
}, 60_000);

test("--model and --permission-mode at the terminal act as in -p; Shift+Tab reaches bypassPermissions only when started with it", async () => {
  const a = await session([write("x.txt", "X\n"), say("wrote it")], { argv: ["--model", "sonnet", "--permission-mode", "acceptEdits"] });
  expect(a.term.screen()).toContain("accept edits on");
  send(a.term, "write x");
  await a.term.waitFor("wrote it");
  expect(a.term.history()).not.toContain("Allow Write?");
  expect(existsSync(join(a.cwd, "x.txt"))).toBe(true);
  expect(a.fake.requests[0]!.body.model).toContain("sonnet");
  // acceptEdits → plan → default → acceptEdits: bypassPermissions is never offered.
  for (const want of ["plan mode on", "default mode", "accept edits on"]) {
    a.term.keys("BTab");
    await a.term.waitFor(want, { where: "screen" });
    expect(a.term.screen()).not.toContain("bypassPermissions on");
  }

  // As root, Claude Code (and yoke) allow it only in a declared sandbox.
  const b = await session([], { argv: ["--permission-mode", "bypassPermissions"], env: { IS_SANDBOX: "1" } });
  await b.term.waitFor("bypassPermissions on", { where: "screen" });
  const cycle = ["default mode", "accept edits on", "plan mode on", "bypassPermissions on"];
  for (const want of cycle) {
    b.term.keys("BTab");
    await b.term.waitFor(want, { where: "screen" });
  }
}, 60_000);

test("\\ + Enter makes a new line; prompts are kept per project across sessions (Up), not shared with another folder", async () => {
  const cwd = tempDir("yoke-tui-hist-");
  const a = await session([say("got two lines")], { cwd });
  a.term.type("first line \\");
  a.term.keys("Enter");
  a.term.type("second line");
  a.term.keys("Enter");
  await a.term.waitFor("got two lines");
  expect(lastUserTexts(a.fake.requests[0]!).join("\n")).toContain("first line \nsecond line");
  a.term.keys("C-d");
  expect(await a.term.waitExit()).toBe(0);

  // The same folder, a new session (same config dir): Up brings the prompt back.
  const b = await session([], { cwd, env: { HOME: a.env.HOME!, YOKE_CONFIG_DIR: a.env.YOKE_CONFIG_DIR!, CLAUDE_CONFIG_DIR: a.env.CLAUDE_CONFIG_DIR! } });
  b.term.keys("Up");
  await b.term.waitFor("second line", { where: "screen" });
  // Another folder, same config dir: nothing to bring back.
  const c = await session([], { env: { HOME: a.env.HOME!, YOKE_CONFIG_DIR: a.env.YOKE_CONFIG_DIR!, CLAUDE_CONFIG_DIR: a.env.CLAUDE_CONFIG_DIR! } });
  c.term.keys("Up");
  c.term.type("MARK");
  await c.term.waitFor("MARK", { where: "screen" });
  expect(c.term.screen()).not.toContain("second line");
}, 60_000);

test("the other built-in commands: /effort, /permissions, /hooks, /agents, /plugins, /status, /usage, /init, /clear, /resume", async () => {
  const cwd = tempDir("yoke-tui-cmds-");
  writeTree(cwd, {
    ".claude/settings.json": JSON.stringify({
      permissions: { allow: ["Bash(ls:*)"] },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] },
    }),
    ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews diffs\n---\nReview.\n",
  });
  const { term, fake } = await session([say("before clear"), say("wrote CLAUDE.md"), say("after clear")], { cwd, env: TRUST_WORKSPACE });
  const run = async (line: string, expectText: string | RegExp) => {
    send(term, line);
    return term.waitFor(expectText);
  };
  await run("/effort high", "Effort set to high");
  await run("/effort extreme", 'Usage: /effort low|medium|high (got "extreme")');
  expect(await run("/permissions", /Bash\(ls:\*\)\s+← .*settings\.json/)).toContain("Recent denials: none");
  await run("/hooks", "PreToolUse");
  await run("/agents", "reviewer: Reviews diffs");
  await run("/plugins", /memory-extraction|No plugins/);
  const status = await run("/status", `Working directory: ${cwd}`);
  expect(status).toContain("Permission mode: default");
  await run("/usage", "No API calls yet in this session.");
  send(term, "hello");
  await term.waitFor("before clear");
  // The effort set above reaches the request.
  expect(JSON.stringify(fake.requests[0]!.body)).toMatch(/"effort":"high"|"budget_tokens"/);
  await run("/usage", "Total cost: $");
  send(term, "/init");
  await term.waitFor("wrote CLAUDE.md");
  expect(lastUserTexts(fake.requests[1]!).join("\n")).toContain("write a CLAUDE.md at its root");
  const first = /Session: ([0-9a-f-]{36})/.exec(status)![1]!;
  await run("/clear", "Started a new session.");
  send(term, "fresh start");
  await term.waitFor("after clear");
  const sent = JSON.stringify(fake.requests[2]!.body.messages);
  expect(sent).toContain("fresh start");
  expect(sent).not.toContain("hello");
  // /resume offers the earlier session of this folder and switches back to it.
  send(term, "/resume");
  await term.waitFor("Resume which session?");
  term.keys("Enter");
  await term.waitFor(`Resumed session ${first}`);
}, 90_000);
