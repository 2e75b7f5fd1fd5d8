import { expect, test } from "bun:test";
import { z } from "zod";
import { defineTool } from "../../src/tool/define-tool.ts";
import { makeCtx, tempDir } from "./ctx.ts";

const calls: unknown[] = [];
const echo = defineTool({
  name: "Echo",
  description: "echoes",
  input: z.strictObject({ text: z.string(), fail: z.boolean().optional() }),
  readOnly: true,
  maxResultChars: 300,
  execute(input) {
    calls.push(input);
    if (input.fail) throw new Error("disk on fire");
    return { content: input.text };
  },
});
const dir = tempDir();

test("invalid input is an is_error instruction naming the field; execute never runs", async () => {
  calls.length = 0;
  const r = await echo.run({ text: 1 }, makeCtx(dir));
  expect(r.isError).toBe(true);
  expect(r.content).toStartWith("InputValidationError: Echo was called with invalid input.");
  expect(r.content).toContain("- text:");
  expect(calls).toEqual([]);
});

test("an interrupt before the call stops it before execute runs", async () => {
  calls.length = 0;
  const ctx = makeCtx(dir);
  ctx.abort.abort();
  expect(await echo.run({ text: "x" }, ctx)).toEqual({ content: "Echo was interrupted by the user.", isError: true });
  expect(calls).toEqual([]);
});

test("a thrown Error becomes an is_error result carrying its message; long text is cut in the middle", async () => {
  expect(await echo.run({ text: "x", fail: true }, makeCtx(dir))).toEqual({ content: "Error: disk on fire", isError: true });
  const long = `${"a".repeat(400)}${"z".repeat(400)}`;
  const r = await echo.run({ text: long }, makeCtx(dir));
  const text = String(r.content);
  expect(text.length).toBeLessThanOrEqual(400);
  expect(text).toStartWith("aaaa");
  expect(text).toEndWith("zzzz");
  expect(text).toContain("characters truncated");
});

test("an input given as a function is made on the first validation only, once; a known jsonSchema never needs it", async () => {
  let made = 0;
  const lazy = defineTool({
    name: "Lazy",
    description: "made late",
    input: () => (made++, z.strictObject({ n: z.number() })),
    jsonSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"], additionalProperties: false },
    readOnly: true,
    execute: (i) => ({ content: String(i.n) }),
  });
  expect([lazy.jsonSchema.required, lazy.description, made]).toEqual([["n"], "made late", 0]);
  expect(await lazy.run({ n: "x" }, makeCtx(dir))).toEqual({
    content: "InputValidationError: Lazy was called with invalid input. Fix these and call it again:\n- n: Invalid input: expected number, received string",
    isError: true,
  });
  expect(await lazy.run({ n: 2 }, makeCtx(dir))).toEqual({ content: "2" });
  expect(made).toBe(1);
  // Without a jsonSchema it is converted from the input when first read, and kept.
  const derived = defineTool({ name: "Derived", description: "d", input: () => z.strictObject({ n: z.number() }), readOnly: true, execute: () => ({ content: "" }) });
  expect(derived.jsonSchema).toEqual(lazy.jsonSchema);
  expect(derived.jsonSchema).toBe(derived.jsonSchema);
});
