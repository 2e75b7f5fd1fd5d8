// Issue 21: which first prompts may start their UserPromptSubmit hooks while composing (src/cli/early-submit.ts). The
// ordering and transcript guarantees are proven on the binary in test/e2e/early-submit.test.ts.
import { describe, expect, test } from "bun:test";
import { createHookBus } from "../../src/hook/bus.ts";
import { earlySubmitApplies } from "../../src/cli/early-submit.ts";
import { mayExpandMcpInput } from "../../src/mcp/mentions.ts";

const busWith = (hooks: Record<string, unknown>) =>
  createHookBus({ settings: { merged: { hooks } as never, sources: [{ level: "project", path: "/p/.claude/settings.json", settings: { hooks } }] as never }, projectDir: "/p", cwd: () => "/p", env: {}, sessionId: "s", yokeDir: "/tmp/none" });
const ups = { UserPromptSubmit: [{ hooks: [{ type: "command", command: "true" }] }] };
const plain = { includeHookEvents: false };

describe("earlySubmitApplies", () => {
  test("a plain prompt with command hooks qualifies", () => {
    expect(earlySubmitApplies("fix the tests", busWith(ups), plain)).toBe(true);
    expect(earlySubmitApplies("mail me at someone@example.com", busWith(ups), plain)).toBe(true);
  });

  test("no UserPromptSubmit hook, or --include-hook-events (its lines must follow system/init): no", () => {
    expect(earlySubmitApplies("fix the tests", busWith({}), plain)).toBe(false);
    expect(earlySubmitApplies("fix the tests", busWith(ups), { includeHookEvents: true })).toBe(false);
  });

  test("a prompt a command, a skill or an MCP server may rewrite: no", () => {
    for (const p of ["/review src", "  /mcp__srv__p x", "/compact", "read @docs:file:///a.md", "@srv:res"]) expect(earlySubmitApplies(p, busWith(ups), plain)).toBe(false);
  });

  test("a plugin's in-process handler (it may look at the session) keeps the hooks where they were", () => {
    const bus = busWith(ups);
    bus.registerInProcess("UserPromptSubmit", () => {}, { source: "p" });
    expect(earlySubmitApplies("fix the tests", bus, plain)).toBe(false);
  });
});

describe("mayExpandMcpInput (the shapes src/mcp/prompts.ts expands)", () => {
  test("commands and resource mentions, not other @ or / text", () => {
    expect(mayExpandMcpInput("/mcp__a__b")).toBe(true);
    expect(mayExpandMcpInput("see @a:b")).toBe(true);
    expect(mayExpandMcpInput("see a@b:c")).toBe(false);
    expect(mayExpandMcpInput("path /mcp__a in the middle")).toBe(false);
    expect(mayExpandMcpInput("@mention only")).toBe(false);
  });
});
