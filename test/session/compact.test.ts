import { describe, expect, test } from "bun:test";
import {
  CLEARED_TOOL_OUTPUT,
  clearOldToolOutputs,
  compactBoundaryEntry,
  estimateTokens,
  localCompactSummary,
  SUMMARY_PREAMBLE,
  summaryUserEntry,
} from "../../src/session/compact.ts";
import type { Message } from "../../src/provider/types.ts";
import { base } from "./helpers.ts";

const u = (text: string): Message => ({ role: "user", content: text });
const a = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const use = (id: string, name = "Bash", input: Record<string, unknown> = { command: "ls" }): Message => ({
  role: "assistant",
  content: [{ type: "tool_use", id, name, input }],
});
const res = (id: string, content: string): Message => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content }] });

const textOf = (m: Message): string => (typeof m.content === "string" ? m.content : m.content.map((b) => (b.type === "text" ? b.text : "")).join(""));

describe("clearOldToolOutputs (internals §6.2)", () => {
  test("clears all but the last keepRecent compactable results, without mutating the input", () => {
    const msgs = [u("go"), use("t1"), res("t1", "one"), use("t2", "Read"), res("t2", "two"), use("t3", "Custom"), res("t3", "three"), use("t4"), res("t4", "four")];
    const copy = structuredClone(msgs);
    const { messages, cleared } = clearOldToolOutputs(msgs, { keepRecent: 1 });
    expect(cleared).toBe(2);
    expect(msgs).toEqual(copy);
    const contents = messages.filter((m) => m.role === "user" && typeof m.content !== "string").map((m) => (m.content as Array<{ content: string }>)[0]!.content);
    // Custom is not a compactable tool; t4 is the most recent one kept
    expect(contents).toEqual([CLEARED_TOOL_OUTPUT, CLEARED_TOOL_OUTPUT, "three", "four"]);
    expect(clearOldToolOutputs(messages, { keepRecent: 1 }).cleared).toBe(0);
  });

  test("keepRecent below 1 still keeps one", () => {
    const { cleared } = clearOldToolOutputs([use("t1"), res("t1", "x")], { keepRecent: 0 });
    expect(cleared).toBe(0);
  });
});

describe("localCompactSummary (internals §6.5, claw-code acceptance cases)", () => {
  test("leaves small sessions unchanged", () => {
    const r = localCompactSummary([u("hi")], { keepRecent: 4 });
    expect(r.removedCount).toBe(0);
    expect(r.summary).toBe("");
    expect(r.messages).toEqual([u("hi")]);
  });

  test("compacts older messages into a summary message and keeps recent ones verbatim", () => {
    const msgs = [u("one ".repeat(200)), use("t1"), res("t1", "ok ".repeat(200)), a("recent")];
    const r = localCompactSummary(msgs, { keepRecent: 2 });
    // cut moved back so tool_use and tool_result stay together
    expect(r.removedCount).toBe(1);
    expect(r.kept).toEqual(msgs.slice(1));
    expect(r.summary.startsWith(SUMMARY_PREAMBLE)).toBe(true);
    expect(r.summary).toContain("Scope: 1 earlier messages");
    expect(r.summary).toContain("- Timeline:");
    expect(r.messages[0]).toEqual({ role: "user", content: r.summary });
    expect(r.messages[1]).toEqual(msgs[1]!);
  });

  test("never starts the kept part with an orphaned tool_result", () => {
    const msgs = [u("start"), use("t1"), res("t1", "r"), a("end")];
    const r = localCompactSummary(msgs, { keepRecent: 1 });
    expect(r.kept[0]!.role).toBe("assistant");
    for (let i = 1; i < r.messages.length; i++) {
      const m = r.messages[i]!;
      if (m.role === "user" && typeof m.content !== "string" && m.content.some((b) => b.type === "tool_result")) {
        const prev = r.messages[i - 1]!;
        expect(prev.role === "assistant" && prev.content.some((b) => b.type === "tool_use")).toBe(true);
      }
    }
  });

  test("truncates long blocks, finds key files and pending work", () => {
    const msgs = [u("x".repeat(400)), a("I changed src/session/load.ts and test/session/load.test.ts. Next: update docs and follow up on perf."), u("a"), a("b"), u("c"), a("d")];
    const r = localCompactSummary(msgs, { keepRecent: 4 });
    expect(r.removedCount).toBe(2);
    expect(r.summary).toContain(`${"x".repeat(160)}…`);
    expect(r.summary).not.toContain("x".repeat(161));
    expect(r.summary).toContain("src/session/load.ts");
    expect(r.summary).toContain("test/session/load.test.ts");
    expect(r.summary).toMatch(/Open items mentioned:\n  - I changed/);
  });

  test("re-compaction folds the previous summary in without nesting it twice", () => {
    const first = localCompactSummary([u("Please build the parser"), a("parser built in src/parse.ts"), u("now tests"), a("ok")], { keepRecent: 2 });
    const next = [...first.messages, u("Also update rust/crates/runtime/src/conversation.rs"), a("done"), u("Please add regression tests"), a("added")];
    const r = localCompactSummary(next, { keepRecent: 2 });
    expect(r.summary.split(SUMMARY_PREAMBLE).length).toBe(2);
    expect(r.summary).toContain("- Newly condensed:");
    expect(r.summary).toContain("now tests"); // kept earlier, merged into the summary message, not lost
    expect(r.summary).toContain("Please build the parser");
    expect(r.summary).toContain("Also update rust/crates/runtime/src/conversation.rs");
    expect(r.kept[0]).toEqual(u("Please add regression tests"));
    // summary and kept user message merge into one user message so roles alternate
    expect(r.messages.length).toBe(2);
    expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(textOf(r.messages[0]!)).toContain("Please add regression tests");
    expect(textOf(r.messages[1]!)).toBe("added");
  });

  test("estimateTokens is bytes/4 plus one per block (internals §6.5)", () => {
    expect(estimateTokens([u("abcd")])).toBe(2);
  });
});

describe("transcript builders (contracts §4.4, §5.2)", () => {
  test("compact boundary and summary lines", () => {
    const b = compactBoundaryEntry(base("b1", "prev"), { trigger: "manual", preTokens: 5000, logicalParentUuid: "prev" });
    expect(b).toMatchObject({ type: "system", subtype: "compact_boundary", parentUuid: null, logicalParentUuid: "prev", compactMetadata: { trigger: "manual", preTokens: 5000 } });
    const s = summaryUserEntry(base("s1", "b1"), "digest");
    expect(s).toMatchObject({ type: "user", parentUuid: "b1", isCompactSummary: true, message: { role: "user", content: "digest" } });
  });
});
