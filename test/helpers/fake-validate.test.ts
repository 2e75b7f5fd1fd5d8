import { describe, expect, test } from "bun:test";
import { validateMessagesRequest } from "./fake-validate.ts";

const base = { model: "m", max_tokens: 100 };
const user = (content: unknown) => ({ role: "user", content });
const assistant = (content: unknown) => ({ role: "assistant", content });
const toolUse = (id: string) => ({ type: "tool_use", id, name: "Read", input: {} });
const toolResult = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "ok" });

describe("validateMessagesRequest mirrors the real API's 400s", () => {
  test("a well-formed tool round trip passes", () => {
    const body = {
      ...base,
      system: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }],
      messages: [
        user("read it"),
        assistant([{ type: "text", text: "reading" }, toolUse("t1"), toolUse("t2")]),
        user([toolResult("t2"), toolResult("t1"), { type: "text", text: "also this" }]),
        assistant([{ type: "text", text: "done" }]),
        user("thanks"),
        assistant([]), // the optional final (prefill) assistant message may be empty
      ],
    };
    expect(validateMessagesRequest(body)).toBeNull();
  });

  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ["missing max_tokens", { model: "m", messages: [user("x")] }, /^max_tokens/],
    ["no messages", { ...base, messages: [] }, /at least one message/],
    ["bad role", { ...base, messages: [{ role: "tool", content: "x" }] }, /^messages\.0\.role/],
    ["system turn with a non-text block", { ...base, messages: [user("x"), { role: "system", content: [{ type: "image", source: {} }] }] }, /^messages\.1\.content: a system message takes text blocks only/],
    ["empty user string", { ...base, messages: [user("")] }, /^messages\.0: all messages must have non-empty content/],
    ["empty user list", { ...base, messages: [user([])] }, /non-empty content/],
    ["empty text block", { ...base, messages: [user([{ type: "text", text: "" }])] }, /^messages\.0\.content\.0: text content blocks must be non-empty/],
    ["whitespace-only text", { ...base, messages: [user("  \n")] }, /^messages\.0\.content\.0: text content blocks must contain non-whitespace text/],
    ["empty system text", { ...base, system: [{ type: "text", text: "" }], messages: [user("x")] }, /^system\.0: text content blocks must be non-empty/],
    ["prefill ending in whitespace", { ...base, messages: [user("x"), assistant("Sure, ")] }, /final assistant content cannot end with trailing whitespace/],
    [
      "tool_use without result",
      { ...base, messages: [user("x"), assistant([toolUse("t1")]), user("no results")] },
      /^messages\.2: `tool_use` ids were found without `tool_result` blocks immediately after: t1/,
    ],
    [
      "one of two tool_uses unanswered",
      { ...base, messages: [user("x"), assistant([toolUse("t1"), toolUse("t2")]), user([toolResult("t1")])] },
      /without `tool_result`.*t2/,
    ],
    [
      "tool_result for an unknown id",
      { ...base, messages: [user("x"), assistant([toolUse("t1")]), user([toolResult("t1"), toolResult("zz")])] },
      /unexpected `tool_use_id` found in `tool_result` blocks: zz/,
    ],
    [
      "tool_result not right after its tool_use",
      {
        ...base,
        messages: [user("x"), assistant([toolUse("t1")]), user([toolResult("t1")]), assistant([{ type: "text", text: "y" }]), user([toolResult("t1")])],
      },
      /^messages\.4\.content: unexpected `tool_use_id`/,
    ],
    [
      "duplicate tool_use ids",
      { ...base, messages: [user("x"), assistant([toolUse("t1")]), user([toolResult("t1")]), assistant([toolUse("t1")]), user([toolResult("t1")])] },
      /tool_use ids must be unique/,
    ],
    [
      "five cache_control blocks",
      {
        ...base,
        system: [1, 2, 3].map((n) => ({ type: "text", text: `s${n}`, cache_control: { type: "ephemeral" } })),
        messages: [user([1, 2].map((n) => ({ type: "text", text: `u${n}`, cache_control: { type: "ephemeral" } })))],
      },
      /maximum of 4 blocks with cache_control.*Found 5/,
    ],
  ];
  for (const [name, body, pattern] of cases) {
    test(`refuses: ${name}`, () => {
      expect(validateMessagesRequest(body)).toMatch(pattern);
    });
  }
});
