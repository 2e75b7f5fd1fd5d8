// user-demand #20: credential shapes are masked before they reach the disk.
import { describe, expect, test } from "bun:test";
import { redactTokens, stringifyRedacted } from "../../src/util/redact.ts";

describe("redactTokens", () => {
  test.each([
    ["sk-ant-api03-abcdefghijklmnopqrstu", "[REDACTED]"],
    ["key AKIAIOSFODNN7EXAMPLE here", "key [REDACTED] here"],
    ["ghp_abcdefghijklmnopqrstuvwxyz0123", "[REDACTED]"],
    ["-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc\n-----END RSA PRIVATE KEY-----", "[REDACTED]"],
  ])("%s", (input, out) => {
    expect(redactTokens(input).text).toBe(out);
  });
  test("ordinary code and hashes are left alone", () => {
    for (const s of ["const token = getToken();", "commit 3f9a2b1c4d5e6f708192a3b4c5d6e7f8091a2b3c", "sk-short", "task-1234567890-abcdefghij"])
      expect(redactTokens(s)).toEqual({ text: s, count: 0 });
  });
  test("stringifyRedacted keeps the JSON valid, even across escaped newlines and quotes", () => {
    const entry = { message: { content: [{ type: "tool_result", content: 'out: "sk-ant-api03-abcdefghijklmnop"\n-----BEGIN PRIVATE KEY-----\n"x"\n-----END PRIVATE KEY-----' }] }, n: 3 };
    const line = stringifyRedacted(entry);
    const back = JSON.parse(line);
    expect(back.n).toBe(3);
    expect(back.message.content[0].content).toBe('out: "[REDACTED]"\n[REDACTED]');
  });
});
