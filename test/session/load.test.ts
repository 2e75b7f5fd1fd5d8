import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { conversationFromEntries, INTERRUPTED_TOOL_RESULT, loadTranscript, resumeSettings } from "../../src/session/load.ts";
import { compactBoundaryEntry, summaryUserEntry } from "../../src/session/compact.ts";
import { assistant, base, jsonl, tempDir, user } from "./helpers.ts";

const write = (text: string): string => {
  const p = join(tempDir(), "t.jsonl");
  writeFileSync(p, text);
  return p;
};

describe("loadTranscript", () => {
  test("a torn last line is ignored with a warning; the file is not rewritten", () => {
    const good = jsonl([user("u1", null, "hi")]);
    const text = `${good}{"parentUuid":"u1","type":"assis`;
    const p = write(text);
    const r = loadTranscript(p);
    expect(r.entries.map((e) => e.uuid)).toEqual(["u1"]);
    expect(r.warnings.length).toBe(1);
    expect(r.warnings[0]).toContain(`${p}:2`);
    expect(r.warnings[0]).toContain("incomplete last line");
    expect(readFileSync(p, "utf8")).toBe(text);
  });

  test("a complete last line without newline is accepted", () => {
    const p = write(JSON.stringify(user("u1", null, "hi")));
    const r = loadTranscript(p);
    expect(r.entries.length).toBe(1);
    expect(r.warnings).toEqual([]);
  });

  test("a corrupt line in the middle is skipped and reported by line number", () => {
    const p = write(`${jsonl([user("u1", null, "a")])}{not json\n[1,2]\n\n${jsonl([assistant("a1", "u1", "m1", [{ type: "text", text: "b" }])])}`);
    const r = loadTranscript(p);
    expect(r.entries.map((e) => e.uuid)).toEqual(["u1", "a1"]);
    expect(r.warnings).toEqual([`${p}:2: line is not valid JSON, skipped`, `${p}:3: line is not a transcript entry (no "type"), skipped`]);
  });

  test("separates meta lines from conversation lines; non-ASCII text survives", () => {
    const p = write(jsonl([{ type: "last-prompt", lastPrompt: "x", leafUuid: "u1" }, user("u1", null, "héllo → 世界"), { type: "custom-title", customTitle: "t" }]));
    const r = loadTranscript(p);
    expect(r.entries.length).toBe(1);
    expect(r.entries[0]!.type === "user" && r.entries[0]!.message.content).toBe("héllo → 世界");
    expect(r.meta.map((m) => m.type)).toEqual(["last-prompt", "custom-title"]);
  });

  test("a missing file is a warning, not an exception", () => {
    const r = loadTranscript("/nonexistent/x.jsonl");
    expect(r.entries).toEqual([]);
    expect(r.warnings[0]).toContain("/nonexistent/x.jsonl");
  });
});

describe("conversationFromEntries", () => {
  const toolUse = { type: "tool_use" as const, id: "t1", name: "Bash", input: { command: "ls" } };
  const chain = [
    user("u1", null, "list files"),
    // one response written one line per block (contracts §5.2), same message.id
    assistant("a1", "u1", "m1", [{ type: "text", text: "Sure." }]),
    assistant("a2", "a1", "m1", [toolUse]),
    user("u2", "a2", [{ type: "tool_result", tool_use_id: "t1", content: "a.txt" }]),
    assistant("a3", "u2", "m2", [{ type: "text", text: "One file." }]),
  ];

  test("re-joins split assistant lines and follows the chain to the last entry", () => {
    const c = conversationFromEntries(chain);
    expect(c.lastUuid).toBe("a3");
    expect(c.chain.map((e) => e.uuid)).toEqual(["u1", "a1", "a2", "u2", "a3"]);
    expect(c.messages).toEqual([
      { role: "user", content: "list files" },
      { role: "assistant", content: [{ type: "text", text: "Sure." }, toolUse] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "a.txt" }] },
      { role: "assistant", content: [{ type: "text", text: "One file." }] },
    ]);
  });

  test("leafUuid (--resume-session-at) truncates; abandoned branches are not followed", () => {
    const branch = [...chain, user("u3", "u1", "other question")];
    // last entry is u3 whose parent is u1: the branch a1..a3 is dropped
    expect(conversationFromEntries(branch).chain.map((e) => e.uuid)).toEqual(["u1", "u3"]);
    expect(conversationFromEntries(branch, { leafUuid: "a1" }).messages).toEqual([
      { role: "user", content: "list files" },
      { role: "assistant", content: [{ type: "text", text: "Sure." }] },
    ]);
    expect(conversationFromEntries(branch, { leafUuid: "nope" }).lastUuid).toBeNull();
  });

  test("a dangling tool_use (process killed mid-tool) gets an error tool_result", () => {
    const c = conversationFromEntries(chain.slice(0, 3));
    expect(c.messages.length).toBe(3);
    expect(c.messages[2]).toEqual({ role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: INTERRUPTED_TOOL_RESULT, is_error: true }] });
    const withPrompt = conversationFromEntries([...chain.slice(0, 3), user("u9", "a2", "continue")]);
    expect(withPrompt.messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "t1", content: INTERRUPTED_TOOL_RESULT, is_error: true },
      { type: "text", text: "continue" },
    ]);
  });

  test("consecutive user lines merge with tool_result blocks first", () => {
    const es = [
      ...chain.slice(0, 3),
      user("u2", "a2", [{ type: "text", text: "note" }]),
      user("u3", "u2", [{ type: "tool_result", tool_use_id: "t1", content: "ok" }]),
    ];
    const c = conversationFromEntries(es);
    expect(c.messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "t1", content: "ok" },
      { type: "text", text: "note" },
    ]);
  });

  test("starts at the last compact boundary", () => {
    const boundary = compactBoundaryEntry(base("b1", "a3"), { trigger: "auto", preTokens: 1234, logicalParentUuid: "a3" });
    const summary = summaryUserEntry(base("s1", "b1"), "digest");
    const es = [...chain, boundary, summary, assistant("a4", "s1", "m4", [{ type: "text", text: "go on" }])];
    const c = conversationFromEntries(es);
    expect(c.chain.map((e) => e.uuid)).toEqual(["b1", "s1", "a4"]);
    expect(c.messages).toEqual([
      { role: "user", content: "digest" },
      { role: "assistant", content: [{ type: "text", text: "go on" }] },
    ]);
  });

  test("attachment lines with uuids bridge the parent chain when meta is given", () => {
    const es = [user("u1", null, "hi"), assistant("a1", "att1", "m1", [{ type: "text", text: "yo" }])];
    const meta = [{ type: "attachment", uuid: "att1", parentUuid: "u1", attachment: { type: "x" } }];
    expect(conversationFromEntries(es, { meta }).chain.map((e) => e.uuid)).toEqual(["u1", "a1"]);
    expect(conversationFromEntries(es).chain.map((e) => e.uuid)).toEqual(["a1"]);
  });

  test("sidechain lines are never the leaf", () => {
    const side = { ...user("x1", "a3", "sub"), isSidechain: true };
    expect(conversationFromEntries([...chain, side]).lastUuid).toBe("a3");
  });
});

test("a compaction cut short after its boundary line resumes the full pre-compaction chain", () => {
  const es = [user("u1", null, "q"), assistant("a1", "u1", "m1", [{ type: "text", text: "r" }])];
  const boundary = compactBoundaryEntry(base("b1", null), { trigger: "auto", preTokens: 1, logicalParentUuid: "a1" });
  const c = conversationFromEntries([...es, boundary]);
  expect(c.lastUuid).toBe("a1");
  expect(c.messages.length).toBe(2);
});

test("resumeSettings restores the last model and permission mode, but never plan or bypassPermissions (contracts §5.3)", () => {
  const a1 = assistant("a1", "u1", "m1", [{ type: "text", text: "r" }]);
  a1.message.model = "claude-x";
  const es = [user("u1", null, "q", { permissionMode: "acceptEdits" }), a1];
  expect(resumeSettings(es)).toEqual({ model: "claude-x", permissionMode: "acceptEdits" });
  expect(resumeSettings([...es, user("u2", "a1", "q2", { permissionMode: "plan" })])).toEqual({ model: "claude-x" });
  expect(resumeSettings([])).toEqual({});
});

test("user/assistant lines without a usable message are skipped with a warning", () => {
  const p = write(`${jsonl([user("u1", null, "ok"), { type: "user", uuid: "u2", parentUuid: "u1" }, { type: "assistant", uuid: "a1", parentUuid: "u1", message: { content: [null] } }])}`);
  const r = loadTranscript(p);
  expect(r.entries.map((e) => e.uuid)).toEqual(["u1"]);
  expect(r.warnings).toEqual([`${p}:2: user line has no "message", skipped`, `${p}:3: assistant line has malformed "message.content", skipped`]);
  expect(() => conversationFromEntries(r.entries)).not.toThrow();
});

describe("conversationFromEntries: hook lines as 2.1.332 writes them (issue 17 review points 1, 5)", () => {
  const att = (uuid: string, parent: string, type: string, text: string, role: "system" | "user") => ({
    parentUuid: parent,
    isSidechain: false,
    attachment: { type },
    type: "attachment",
    uuid,
    timestamp: "2026-12-01T00:00:00.000Z",
    rendered: [{ content: `<system-reminder>\n${text}\n</system-reminder>` }],
    renderedRole: role,
  });
  test("hook attachments come back as one system turn after the turn's user content; Claude Code's own context lines (environment …) do not; hook-text lines get their lead", () => {
    const entries = [
      user("u1", null, "go"),
      assistant("a1", "x3", "m1", [{ type: "text", text: "done" }]),
      user("u2", "a1", "Stop hook feedback:\nJSON one.", { isMeta: true, hookText: true, hookTextLead: "LEAD" } as never),
      user("u3", "x4", "Stop hook feedback:\nexit two\n", { isMeta: true, hookText: true, hookTextLead: "LEAD" } as never),
      assistant("a2", "u3", "m2", [{ type: "text", text: "fixed" }]),
    ];
    const meta = [
      att("x1", "u1", "environment", "# Environment", "system"),
      att("x2", "x1", "hook_additional_context", "UserPromptSubmit hook additional context: ups", "system"),
      att("x3", "x2", "instructions", "Contents of CLAUDE.md", "user"),
      att("x4", "u2", "hook_blocking_error", 'Stop hook blocking error from command: "one.sh": JSON one.', "system"),
    ];
    const c = conversationFromEntries(entries as never, { meta });
    expect(c.chain.map((e) => e.uuid)).toEqual(["u1", "a1", "u2", "u3", "a2"]);
    expect(c.messages).toEqual([
      { role: "user", content: "go" },
      { role: "system", content: "UserPromptSubmit hook additional context: ups" },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
      {
        role: "user",
        content: [
          { type: "text", text: "<system-reminder>\nLEAD\nStop hook feedback:\nJSON one.\n</system-reminder>\n" },
          { type: "text", text: "<system-reminder>\nLEAD\nStop hook feedback:\nexit two\n\n</system-reminder>" },
        ],
      },
      { role: "system", content: 'Stop hook blocking error from command: "one.sh": JSON one.' },
      { role: "assistant", content: [{ type: "text", text: "fixed" }] },
    ]);
  });
});
