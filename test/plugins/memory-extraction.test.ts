// Issue 8 point 2, internals §3: background memory extraction through PluginHost.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import memoryExtraction, { createExtraction, EXTRACTION_MARKER, EXTRACTION_MAX_TURNS, extractionEnabled } from "../../plugins/memory-extraction/index.ts";
import { changedFiles, extractionPrompt, fingerprint } from "../../plugins/memory-extraction/prompt.ts";
import { scanMemoryFiles } from "../../src/context/relevant-memory.ts";
import { createCoalescer } from "../../plugins/shared/coalesce.ts";
import { conversationText, countVisibleMessages, indexAfter, wroteInto } from "../../plugins/shared/conversation-text.ts";
import { switchedOn } from "../../plugins/shared/switch.ts";
import type { ForkOptions } from "../../src/plugin/types.ts";
import type { Message } from "../../src/provider/types.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { assistant, gate, testHost, toolCall, toolResult, user } from "./host-helper.ts";

describe("conversation helpers", () => {
  test("conversationText keeps what was said, clips tool traffic, drops injected reminders, keeps the tail", () => {
    const msgs: Message[] = [
      { role: "user", content: [{ type: "text", text: "<system-reminder>\nCLAUDE.md stuff\n</system-reminder>" }, { type: "text", text: "use tabs please" }] },
      toolCall("t1", "Read", { file_path: "/x" }),
      toolResult("t1", "y".repeat(2000)),
      assistant("done"),
    ];
    const text = conversationText(msgs);
    expect(text).toContain("User: use tabs please");
    expect(text).not.toContain("CLAUDE.md stuff");
    expect(text).toContain('Assistant called Read: {"file_path":"/x"}');
    expect(text).toContain("more characters]");
    expect(text.length).toBeLessThan(1000);
    expect(text.endsWith("Assistant: done")).toBe(true);
    const tail = conversationText([user("a".repeat(500)), user("LAST")], { maxChars: 100 });
    expect(tail.startsWith("[… earlier part left out …]")).toBe(true);
    expect(tail.endsWith("LAST")).toBe(true);
  });

  test("wroteInto sees Write/Edit into the directory only", () => {
    expect(wroteInto([toolCall("a", "Write", { file_path: "/m/mem/x.md" })], "/m/mem/")).toBe(true);
    expect(wroteInto([toolCall("a", "Edit", { file_path: "/m/mem" })], "/m/mem/")).toBe(true);
    expect(wroteInto([toolCall("a", "Write", { file_path: "/m/memory-other/x.md" })], "/m/mem/")).toBe(false);
    expect(wroteInto([toolCall("a", "Read", { file_path: "/m/mem/x.md" })], "/m/mem/")).toBe(false);
  });

  test("indexAfter follows the message object; a replaced list starts over", () => {
    const a = user("a");
    const b = assistant("b");
    expect(indexAfter([a, b], null)).toBe(0);
    expect(indexAfter([a, b], a)).toBe(1);
    expect(indexAfter([user("a"), b], user("a"))).toBe(0);
    expect(countVisibleMessages([a, toolResult("x", "r"), b])).toBe(2);
  });

  test("switchedOn: env wins, then the setting, then the default", () => {
    expect(switchedOn("1", false, false)).toBe(true);
    expect(switchedOn("0", true, true)).toBe(false);
    expect(switchedOn("off", undefined, true)).toBe(false);
    expect(switchedOn(undefined, true, false)).toBe(true);
    expect(switchedOn("", undefined, true)).toBe(true);
    expect(switchedOn("maybe", undefined, false)).toBe(false);
  });

  test("createCoalescer: requests during a run fold into one trailing run", async () => {
    const g = gate();
    let runs = 0;
    const c = createCoalescer(async () => {
      runs++;
      if (runs === 1) await g.p;
    }, () => {});
    const p1 = c.request();
    const p2 = c.request();
    const p3 = c.request();
    expect(p2).toBe(p1);
    g.open();
    await Promise.all([p1, p2, p3]);
    expect(runs).toBe(2);
    expect(c.current()).toBeNull();
    await c.request();
    expect(runs).toBe(3);
  });

  test("createCoalescer never rejects; errors go to onError", async () => {
    const errs: unknown[] = [];
    const c = createCoalescer(async () => {
      throw new Error("boom");
    }, (e) => errs.push(e));
    await c.request();
    expect((errs[0] as Error).message).toBe("boom");
  });
});

describe("memory files", () => {
  test("the prompt lists memories by type and description (scanMemoryFiles); fingerprint/changedFiles tell what changed", async () => {
    const t = testHost();
    const dir = t.memoryDir!;
    writeFileSync(join(dir, "MEMORY.md"), "- [a](a.md)\n");
    writeFileSync(join(dir, "a.md"), "---\nname: a\ndescription: about a\ntype: user\n---\nbody\n");
    const before = fingerprint(dir);
    writeFileSync(join(dir, "b.md"), "x");
    writeFileSync(join(dir, "MEMORY.md"), "- [a](a.md)\n- [b](b.md)\n");
    expect(changedFiles(before, fingerprint(dir))).toEqual(["b.md"]);
    const prompt = extractionPrompt({ dir, memories: scanMemoryFiles(dir), index: "- [a](a.md)", conversation: "User: hi", count: 1 });
    expect(prompt).toContain("- [user] a.md: about a");
    expect(prompt).toContain("<conversation>\nUser: hi\n</conversation>");
  });
});

describe("createExtraction (internals §3)", () => {
  const saveOne = (dir: string, name: string) => async () => {
    writeFileSync(join(dir, name), `---\nname: ${name}\ndescription: d\ntype: feedback\n---\nx\n`);
    return { text: "saved", isError: false, numTurns: 2, toolUses: [] };
  };

  test("the fork gets our prompt, ≤5 turns, the allowed tools and writes confined to the memory dir; a notice names the files", async () => {
    let dir = "";
    const t = testHost({ env: { YOKE_MEMORY_EXTRACTION: "1" }, fork: () => saveOne(dir, "tabs.md")() });
    dir = t.memoryDir!;
    t.messages.push(user("always use tabs"), assistant("ok"));
    const ex = createExtraction(t.host);
    ex.onTurnEnd();
    expect(t.background.size()).toBe(1);
    expect(await t.background.drain(30_000)).toBe(0);
    const f = t.forks[0]! as ForkOptions;
    expect(f.system.startsWith(EXTRACTION_MARKER)).toBe(true);
    expect(f.prompt).toContain("User: always use tabs");
    expect(f.maxTurns).toBe(EXTRACTION_MAX_TURNS);
    expect(f.tools).toEqual(["Read", "Grep", "Glob", "Bash", "Write", "Edit"]);
    expect(f.writeDirs).toEqual([dir]);
    expect(f.readOnlyBash).toBe(true);
    expect(t.notices).toEqual([`Memory updated: tabs.md (in ${dir})`]);
  });

  test("a second run sees only the messages after the first; nothing new means no fork", async () => {
    const t = testHost({ env: { YOKE_MEMORY_EXTRACTION: "1" } });
    t.messages.push(user("first fact here"), assistant("ok"));
    const ex = createExtraction(t.host);
    await ex.request();
    t.messages.push(user("second fact here"), assistant("ok2"));
    await ex.request();
    expect(t.forks).toHaveLength(2);
    expect(t.forks[1]!.prompt).toContain("second fact here");
    expect(t.forks[1]!.prompt).not.toContain("first fact here");
    await ex.request();
    expect(t.forks).toHaveLength(2);
    expect(t.notices).toEqual([]); // nothing was written
  });

  test("overlapping requests coalesce into one trailing run over the newest messages", async () => {
    const g = gate();
    let n = 0;
    const t = testHost({
      env: { YOKE_MEMORY_EXTRACTION: "1" },
      fork: async () => {
        if (++n === 1) await g.p;
        return { text: "ok", isError: false, numTurns: 1, toolUses: [] };
      },
    });
    t.messages.push(user("turn one"), assistant("a1"));
    const ex = createExtraction(t.host);
    ex.onTurnEnd();
    // The first fork has started (and waits at the gate) before the next turns end: a 5 ms sleep assumed so.
    await waitFor(() => n === 1, "the first extraction's fork to start");
    t.messages.push(user("turn two"), assistant("a2"));
    ex.onTurnEnd();
    t.messages.push(user("turn three"), assistant("a3"));
    ex.onTurnEnd();
    g.open();
    expect(await t.background.drain(30_000)).toBe(0);
    expect(t.forks).toHaveLength(2);
    expect(t.forks[1]!.prompt).toContain("turn two");
    expect(t.forks[1]!.prompt).toContain("turn three");
    expect(t.forks[1]!.prompt).not.toContain("turn one");
  });

  test("a failed run keeps the cursor: the same messages are tried again", async () => {
    let fail = true;
    const t = testHost({ env: { YOKE_MEMORY_EXTRACTION: "1" }, fork: async () => ({ text: "API Error: 500", isError: fail, numTurns: 1, toolUses: [] }) });
    t.messages.push(user("keep me"), assistant("ok"));
    const ex = createExtraction(t.host);
    await ex.request();
    fail = false;
    await ex.request();
    expect(t.forks).toHaveLength(2);
    expect(t.forks[1]!.prompt).toContain("keep me");
  });

  test("skipped when the main agent wrote into the memory directory since the last run", async () => {
    const t = testHost({ env: { YOKE_MEMORY_EXTRACTION: "1" } });
    t.messages.push(user("remember x"), toolCall("w", "Write", { file_path: join(t.memoryDir!, "x.md"), content: "x" }), toolResult("w", "ok"), assistant("saved"));
    const ex = createExtraction(t.host);
    await ex.request();
    expect(t.forks).toHaveLength(0);
    t.messages.push(user("and another thing"), assistant("ok"));
    await ex.request();
    expect(t.forks).toHaveLength(1);
    expect(t.forks[0]!.prompt).not.toContain("remember x");
  });

  test("switches: off by default, on by setting or env, off without a memory dir; setup registers a Stop hook only when on", async () => {
    expect(extractionEnabled(testHost().host)).toBe(false);
    expect(extractionEnabled(testHost({ settings: { memoryExtraction: true } }).host)).toBe(true);
    expect(extractionEnabled(testHost({ settings: { memoryExtraction: true }, env: { YOKE_MEMORY_EXTRACTION: "0" } }).host)).toBe(false);
    expect(extractionEnabled(testHost({ env: { YOKE_MEMORY_EXTRACTION: "1" }, memory: false }).host)).toBe(false);
    // Issue 12 point 6: on by default in the interactive session; the setting and the env switch still turn it off.
    expect(extractionEnabled(testHost({ interactive: true }).host)).toBe(true);
    expect(extractionEnabled(testHost({ interactive: true, settings: { memoryExtraction: false } }).host)).toBe(false);
    expect(extractionEnabled(testHost({ interactive: true, env: { YOKE_MEMORY_EXTRACTION: "0" } }).host)).toBe(false);
    expect(extractionEnabled(testHost({ interactive: true, memory: false }).host)).toBe(false);
    const off = testHost();
    await memoryExtraction.setup(off.host);
    expect(off.hooks).toHaveLength(0);
    const on = testHost({ env: { YOKE_MEMORY_EXTRACTION: "1" } });
    await memoryExtraction.setup(on.host);
    expect(on.hooks.map((h) => h.event)).toEqual(["Stop"]);
    on.messages.push(user("hello there"), assistant("hi"));
    await on.hooks[0]!.handler({}, { signal: new AbortController().signal });
    expect(await on.background.drain(30_000)).toBe(0);
    expect(on.forks).toHaveLength(1);
  });
});

describe("secrets (user-demand §20)", () => {
  test("redactSecrets masks credential shapes and keeps ordinary text", async () => {
    const { redactSecrets } = await import("yoke");
    const r = redactSecrets(
      "key sk-ant-api03-abcdefghijklmnop and AKIAABCDEFGHIJKLMNOP, ghp_abcdefghijklmnopqrstuvwxyz012345\npassword: hunter2222\nThe user likes tabs.",
    );
    expect(r.count).toBe(4);
    expect(r.text).not.toContain("sk-ant-api03");
    expect(r.text).not.toContain("AKIAABCDEFGHIJKLMNOP");
    expect(r.text).not.toContain("hunter2222");
    expect(r.text).toContain("password: [REDACTED]");
    expect(r.text).toContain("The user likes tabs.");
    expect(redactSecrets("a token of thanks").count).toBe(0);
  });

  test("a memory file the fork wrote with a secret in it is scrubbed on disk", async () => {
    let dir = "";
    const t = testHost({
      env: { YOKE_MEMORY_EXTRACTION: "1" },
      fork: async () => {
        writeFileSync(join(dir, "deploy.md"), "---\nname: deploy\ndescription: d\ntype: reference\n---\nDeploy with token=abcdef123456 via the dashboard.\n");
        return { text: "saved", isError: false, numTurns: 2, toolUses: [] };
      },
    });
    dir = t.memoryDir!;
    t.messages.push(user("deploy uses token=abcdef123456"), assistant("ok"));
    await createExtraction(t.host).request();
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(join(dir, "deploy.md"), "utf8")).toContain("token=[REDACTED] via the dashboard");
  });
});
