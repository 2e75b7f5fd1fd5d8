// Issue 20 point 5: every tool call ends. A tool without a bound of its own gets YOKE_TOOL_TIMEOUT_MS: at the
// deadline its signal aborts and the call comes back as an is_error result naming the limit.
import { expect, test } from "bun:test";
import { runWithDeadline, toolDeadlineMs, DEFAULT_TOOL_TIMEOUT_MS } from "../../src/loop/tool-deadline.ts";
import type { ToolContext, ToolResult } from "../../src/tool/types.ts";

const ctxWith = (env: Record<string, string>, signal = new AbortController().signal) => ({ env, signal }) as unknown as ToolContext;

test("a hung tool ends at the deadline as an is_error result, and its signal is aborted", async () => {
  let seen: AbortSignal | undefined;
  const hung = { name: "Glob", run: (_: unknown, ctx: ToolContext) => ((seen = ctx.signal), new Promise<ToolResult>(() => {})) };
  const r = await runWithDeadline(hung, {}, ctxWith({ YOKE_TOOL_TIMEOUT_MS: "30" }));
  expect(r).toEqual({ isError: true, content: "Glob did not finish within 30 ms (YOKE_TOOL_TIMEOUT_MS) and was stopped. Try a narrower request (a smaller path, a more specific pattern)." });
  expect(seen?.aborted).toBe(true);
});

test("a tool that finishes in time returns its own result; the user's abort still reaches it", async () => {
  const ok = { name: "Read", run: async () => ({ content: "fine" }) };
  expect(await runWithDeadline(ok, {}, ctxWith({}))).toEqual({ content: "fine" });
  const user = new AbortController();
  const waits = {
    name: "Grep",
    run: (_: unknown, ctx: ToolContext) => new Promise<ToolResult>((res) => ctx.signal.addEventListener("abort", () => res({ content: "stopped", isError: true }))),
  };
  const p = runWithDeadline(waits, {}, ctxWith({}, user.signal));
  user.abort();
  expect(await p).toEqual({ content: "stopped", isError: true });
});

test("tools with a bound of their own keep it; the default is 10 minutes; a bad value falls back", () => {
  for (const n of ["Bash", "Agent", "Task", "AskUserQuestion", "mcp__srv__tool"]) expect(toolDeadlineMs(n, {})).toBeUndefined();
  expect(toolDeadlineMs("WebFetch", {})).toBe(DEFAULT_TOOL_TIMEOUT_MS);
  expect(DEFAULT_TOOL_TIMEOUT_MS).toBe(600_000);
  expect(toolDeadlineMs("Read", { YOKE_TOOL_TIMEOUT_MS: "abc" })).toBe(DEFAULT_TOOL_TIMEOUT_MS);
  expect(toolDeadlineMs("Read", { YOKE_TOOL_TIMEOUT_MS: "1500" })).toBe(1500);
});
