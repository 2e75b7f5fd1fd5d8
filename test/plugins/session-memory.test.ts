// Issue 8 point 3, internals §5: session notes and the compaction summary provider.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import sessionMemory, {
  applyUpdates,
  createSessionMemory,
  isEmptyNotes,
  NOTES_MARKER,
  notesForCompaction,
  notesPathFor,
  parseNotes,
  planKeep,
  saveNotesTool,
  SECTIONS,
  SESSION_MEMORY_CONFIG,
  shouldUpdate,
  TEMPLATE,
} from "../../plugins/session-memory/index.ts";
import type { ForkOptions } from "../../src/plugin/types.ts";
import type { Message } from "../../src/provider/types.ts";
import { makeCtx } from "../tool/ctx.ts";
import { assistant, gate, testHost, toolCall, toolResult, user } from "./host-helper.ts";

const signal = () => new AbortController().signal;

describe("template", () => {
  test("has the fixed sections, each a heading with an italic description, and parses back", () => {
    const names = SECTIONS.map((s) => s.heading);
    for (const h of ["Session Title", "Current State", "Task", "Files and Functions", "Workflow", "Errors and Corrections"]) expect(names).toContain(h);
    const parsed = parseNotes(TEMPLATE);
    expect(parsed.map((s) => s.heading)).toEqual(names);
    expect(parsed.every((s) => s.hint && !s.body)).toBe(true);
    expect(isEmptyNotes(TEMPLATE)).toBe(true);
  });

  test("applyUpdates replaces bodies only, keeps headings and hints, reports unknown sections", () => {
    const r = applyUpdates(TEMPLATE, [
      { section: "# Current State", content: "editing parse()\n" },
      { section: "task", content: "fix parser" },
      { section: "Mood", content: "x" },
    ]);
    expect(r.changed).toEqual(["Current State", "Task"]);
    expect(r.unknown).toEqual(["Mood"]);
    const again = parseNotes(r.text);
    expect(again.map((s) => s.heading)).toEqual(SECTIONS.map((s) => s.heading));
    expect(again.find((s) => s.heading === "Current State")).toMatchObject({ hint: SECTIONS[1]!.hint, body: "editing parse()" });
    expect(r.text).toContain("# Task\n_");
    expect(isEmptyNotes(r.text)).toBe(false);
  });

  test("notesForCompaction drops empty sections and cuts oversized ones with a pointer to the file", () => {
    const big = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join("\n");
    const text = applyUpdates(TEMPLATE, [{ section: "Task", content: "small task" }, { section: "Worklog", content: big }]).text;
    const s = notesForCompaction(text, "/n/summary.md");
    expect(s).toContain("# Task\nsmall task");
    expect(s).not.toContain("# Learnings");
    expect(s).toContain("[... section cut for length ...]");
    expect(s).toContain("/n/summary.md");
    expect(s.length).toBeLessThan(9000);
    expect(notesForCompaction(applyUpdates(TEMPLATE, [{ section: "Task", content: "t" }]).text, "/p")).not.toContain("/p");
  });
});

describe("thresholds (internals §5)", () => {
  test.each([
    [{ tokensAtLastUpdate: 0 }, { tokens: 9_999, toolCallsSince: 10, endOfTurn: true }, false],
    [{ tokensAtLastUpdate: 0 }, { tokens: 10_000, toolCallsSince: 0, endOfTurn: true }, true],
    [{ tokensAtLastUpdate: 0 }, { tokens: 10_000, toolCallsSince: 2, endOfTurn: false }, false],
    [{ tokensAtLastUpdate: 0 }, { tokens: 10_000, toolCallsSince: 3, endOfTurn: false }, true],
    [{ tokensAtLastUpdate: 10_000 }, { tokens: 14_999, toolCallsSince: 9, endOfTurn: true }, false],
    [{ tokensAtLastUpdate: 10_000 }, { tokens: 15_000, toolCallsSince: 3, endOfTurn: false }, true],
    [{ tokensAtLastUpdate: 10_000 }, { tokens: 15_000, toolCallsSince: 1, endOfTurn: false }, false],
    [{ tokensAtLastUpdate: 10_000 }, { tokens: 15_000, toolCallsSince: 0, endOfTurn: true }, true],
  ])("%j %j → %p", (state, now, want) => {
    expect(shouldUpdate(state, now)).toBe(want);
  });
});

describe("planKeep", () => {
  const cfg = { keepMinTokens: 0, keepMinTextMessages: 0, keepMaxTokens: 1e9 };
  const convo: Message[] = [
    user("first prompt"),
    toolCall("a", "Read", { file_path: "/x" }),
    toolResult("a", "contents"),
    assistant("read it"),
    user("second prompt"),
    toolCall("b", "Bash", { command: "ls" }),
    toolResult("b", "files"),
    assistant("listed"),
  ];

  test("keeps what the notes do not cover, from a user prompt, never splitting a tool pair", () => {
    expect(planKeep(convo, 4, cfg)).toBe(4);
    expect(planKeep(convo, 6, cfg)).toBe(4); // covered up to a tool_use: back to its prompt
    expect(planKeep(convo, 7, cfg)).toBe(4);
    expect(planKeep(convo, 8, cfg)).toBe(8); // everything covered: keep nothing
  });

  test("null when the notes would replace nothing", () => {
    expect(planKeep(convo, 0, cfg)).toBeNull();
    expect(planKeep(convo, 2, cfg)).toBeNull();
  });

  test("reaches back for a minimum of recent context, within the maximum", () => {
    expect(planKeep(convo, 8, { keepMinTokens: 0, keepMinTextMessages: 1, keepMaxTokens: 1e9 })).toBe(4);
    expect(planKeep(convo, 8, { keepMinTokens: 1e6, keepMinTextMessages: 0, keepMaxTokens: 1e9 })).toBeNull();
    expect(planKeep(convo, 8, { keepMinTokens: 1e6, keepMinTextMessages: 0, keepMaxTokens: 12 })).toBe(4);
  });

  test("defaults match internals §5", () => {
    expect(SESSION_MEMORY_CONFIG).toMatchObject({ initTokens: 10_000, minGrowthTokens: 5_000, toolCallsBetween: 3, keepMinTokens: 10_000, keepMinTextMessages: 5, keepMaxTokens: 40_000 });
  });
});

describe("SaveSessionNotes tool", () => {
  test("creates the file from the template (0600), updates sections, refuses unknown headings as an instruction", async () => {
    const t = testHost();
    const path = join(t.yokeDir, "n", "summary.md");
    const tool = saveNotesTool(path);
    const ctx = makeCtx(t.yokeDir);
    const ok = await tool.run({ updates: [{ section: "Current State", content: "working" }] }, ctx);
    expect(ok.isError).toBeFalsy();
    expect(readFileSync(path, "utf8")).toContain("# Current State\n_");
    expect(readFileSync(path, "utf8")).toContain("working");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    const bad = await tool.run({ updates: [{ section: "Diary", content: "x" }] }, ctx);
    expect(bad.isError).toBe(true);
    expect(String(bad.content)).toContain("Use these headings exactly");
    const invalid = await tool.run({ updates: [] }, ctx);
    expect(invalid.isError).toBe(true);
  });
});

/** A fork that behaves like the model: it calls the plugin's SaveSessionNotes tool. */
const notingFork = (content: string) => async (f: ForkOptions) => {
  const tool = f.extraTools![0]!;
  const r = await tool.run({ updates: [{ section: "Current State", content }] }, makeCtx("/"));
  return { text: "done", isError: !!r.isError, numTurns: 2, toolUses: [] };
};

describe("createSessionMemory", () => {
  test("notes live beside the transcript (Claude Code's layout), or in plugin storage without one", () => {
    const t = testHost();
    expect(notesPathFor(t.host)).toBe(join(t.yokeDir, "projects", "p", "sess-1", "session-memory", "summary.md"));
    const u = testHost({ transcriptPath: "" });
    expect(notesPathFor(u.host)).toBe(join(u.yokeDir, "plugins-data", "test", "sess-1", "summary.md"));
  });

  test("check() schedules an update only past the thresholds; the fork gets our prompt and only the notes tool", async () => {
    const t = testHost({ fork: notingFork("parser fixed") });
    const sm = createSessionMemory(t.host);
    t.messages.push(user("fix the parser"), assistant("fixed"));
    t.tokens.value = 9_000;
    sm.check(true);
    expect(t.background.size()).toBe(0);
    t.tokens.value = 11_000;
    sm.check(true);
    expect(await t.background.drain(30_000)).toBe(0);
    expect(t.forks).toHaveLength(1);
    const f = t.forks[0]!;
    expect(f.system.startsWith(NOTES_MARKER)).toBe(true);
    expect(f.tools).toEqual([]);
    expect(f.extraTools!.map((x) => x.name)).toEqual(["SaveSessionNotes"]);
    expect(f.prompt).toContain("User: fix the parser");
    expect(f.prompt).toContain("# Current State");
    expect(readFileSync(sm.path, "utf8")).toContain("parser fixed");
    // Growth below 5K: no new update.
    t.messages.push(user("and now?"), assistant("now"));
    t.tokens.value = 14_000;
    sm.check(true);
    expect(t.background.size()).toBe(0);
    t.tokens.value = 16_500;
    t.messages.push(toolCall("a", "Read", { file_path: "/a" }), toolResult("a", "x"));
    sm.check(false); // one tool call since the update and not the end of a turn
    expect(t.background.size()).toBe(0);
    t.messages.push(toolCall("b", "Read", { file_path: "/b" }), toolResult("b", "x"), toolCall("c", "Read", { file_path: "/c" }));
    sm.check(false);
    expect(await t.background.drain(30_000)).toBe(0);
    expect(t.forks).toHaveLength(2);
    expect(t.forks[1]!.prompt).toContain("and now?");
    expect(t.forks[1]!.prompt).not.toContain("fix the parser");
  });

  test("the summary provider: null without notes or with the bare template, else the notes and the uncovered messages kept", async () => {
    const t = testHost({ fork: notingFork("state after turn two") });
    const cfg = { ...SESSION_MEMORY_CONFIG, keepMinTokens: 0, keepMinTextMessages: 0 };
    const sm = createSessionMemory(t.host, cfg);
    t.messages.push(user("one"), assistant("a1"), user("two"), assistant("a2"));
    expect(await sm.provider({ trigger: "auto", messages: t.messages, signal: signal() })).toBeNull();
    mkdirSync(dirname(sm.path), { recursive: true });
    writeFileSync(sm.path, TEMPLATE);
    expect(await sm.provider({ trigger: "auto", messages: t.messages, signal: signal() })).toBeNull();
    await sm.update(true);
    t.messages.push(user("three"), toolCall("x", "Bash", { command: "ls" }), toolResult("x", "out"), assistant("a3"));
    const r = await sm.provider({ trigger: "auto", messages: t.messages, signal: signal() });
    expect(r!.summary).toContain("# Current State\nstate after turn two");
    expect(r!.keepRecent).toBe(4); // "three" and what followed, verbatim
    expect(await sm.provider({ trigger: "manual", focus: "only the API", messages: t.messages, signal: signal() })).toBeNull();
  });

  test("the provider waits for an update in progress so compaction gets fresh notes", async () => {
    const g = gate();
    const t = testHost({
      fork: async (f) => {
        await g.p;
        return notingFork("fresh")(f);
      },
    });
    const sm = createSessionMemory(t.host, { ...SESSION_MEMORY_CONFIG, keepMinTokens: 0, keepMinTextMessages: 0 });
    t.messages.push(user("one"), assistant("a1"), user("two"), assistant("a2"));
    const running = sm.update(true);
    const asked = sm.provider({ trigger: "auto", messages: t.messages, signal: signal() });
    await Bun.sleep(10);
    g.open();
    await running;
    const r = await asked;
    expect(r!.summary).toContain("fresh");
  });

  test("after compaction shrinks the context, growth is counted from the smaller size", async () => {
    const t = testHost({ fork: notingFork("n") });
    const sm = createSessionMemory(t.host);
    t.messages.push(user("a b"), assistant("c"));
    t.tokens.value = 150_000;
    await sm.update();
    expect(t.forks).toHaveLength(1);
    t.messages.push(user("d e"), assistant("f"));
    t.tokens.value = 20_000; // compacted
    sm.check(true);
    expect(t.background.size()).toBe(0);
    t.tokens.value = 25_000;
    sm.check(true);
    expect(await t.background.drain(30_000)).toBe(0);
    expect(t.forks).toHaveLength(2);
  });

  test("a failed update leaves the thresholds, so the next check tries again", async () => {
    const t = testHost({ fork: async () => ({ text: "API Error", isError: true, numTurns: 1, toolUses: [] }) });
    const sm = createSessionMemory(t.host);
    t.messages.push(user("x y"), assistant("z"));
    t.tokens.value = 20_000;
    await sm.update();
    await sm.update();
    expect(t.forks).toHaveLength(2);
    expect(isEmptyNotes(readFileSync(sm.path, "utf8"))).toBe(true);
  });

  test("setup: off by default; on, it hooks PostToolUse and Stop and offers a summary provider", async () => {
    const off = testHost();
    await sessionMemory.setup(off.host);
    expect(off.hooks).toHaveLength(0);
    expect(off.providers).toHaveLength(0);
    const on = testHost({ settings: { sessionMemory: true } });
    await sessionMemory.setup(on.host);
    expect(on.hooks.map((h) => h.event).sort()).toEqual(["PostToolUse", "Stop"]);
    expect(on.providers).toHaveLength(1);
    const envOff = testHost({ settings: { sessionMemory: true }, env: { YOKE_SESSION_MEMORY: "0" } });
    await sessionMemory.setup(envOff.host);
    expect(envOff.hooks).toHaveLength(0);
    // Issue 12 point 6: on by default in the interactive session; the setting and the env switch still turn it off.
    const tty = testHost({ interactive: true });
    await sessionMemory.setup(tty.host);
    expect(tty.providers).toHaveLength(1);
    for (const o of [{ settings: { sessionMemory: false } }, { env: { YOKE_SESSION_MEMORY: "0" } }]) {
      const t = testHost({ interactive: true, ...o });
      await sessionMemory.setup(t.host);
      expect(t.hooks).toHaveLength(0);
    }
    expect(existsSync(notesPathFor(on.host))).toBe(false);
  });
});

describe("compaction hands over copies", () => {
  test("the provider finds what the notes cover in a copied message list", async () => {
    const t = testHost({ fork: notingFork("covered") });
    const sm = createSessionMemory(t.host, { ...SESSION_MEMORY_CONFIG, keepMinTokens: 0, keepMinTextMessages: 0 });
    t.messages.push(user("one"), assistant("a1"));
    await sm.update(true);
    t.messages.push(user("two"), assistant("a2"));
    const copies = t.messages.map((m) => structuredClone(m));
    const r = await sm.provider({ trigger: "auto", messages: copies, signal: signal() });
    expect(r?.keepRecent).toBe(2);
  });
});

describe("resume", () => {
  test("a new process for the same session continues from the saved state: thresholds and what the notes cover", async () => {
    const first = testHost({ fork: notingFork("before resume") });
    const sm1 = createSessionMemory(first.host, { ...SESSION_MEMORY_CONFIG, keepMinTokens: 0, keepMinTextMessages: 0 });
    first.messages.push(user("one"), assistant("a1"));
    first.tokens.value = 12_000;
    await sm1.update();
    expect(first.forks).toHaveLength(1);
    // Same yokeDir and session id, fresh plugin state, the conversation loaded again (as copies) plus a new turn.
    const second = testHost({ fork: notingFork("after resume"), transcriptPath: join(first.yokeDir, "projects", "p", "sess-1.jsonl") });
    const sm2 = createSessionMemory(second.host, { ...SESSION_MEMORY_CONFIG, keepMinTokens: 0, keepMinTextMessages: 0 });
    expect(sm2.path).toBe(sm1.path);
    second.messages.push(user("one"), assistant("a1"), user("two"), assistant("a2"));
    second.tokens.value = 14_000; // under 5K growth since the saved update
    sm2.check(true);
    expect(second.background.size()).toBe(0);
    const r = await sm2.provider({ trigger: "auto", messages: second.messages, signal: signal() });
    expect(r?.summary).toContain("before resume");
    expect(r?.keepRecent).toBe(2);
    second.tokens.value = 18_000;
    await sm2.update();
    expect(second.forks[0]!.prompt).toContain("User: two");
    expect(second.forks[0]!.prompt).not.toContain("User: one");
  });
});
