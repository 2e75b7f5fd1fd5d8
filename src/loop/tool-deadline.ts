/**
 * Every tool call ends (issue 20 point 5): tools that bound themselves (Bash and its timeout, MCP tools and
 * MCP_TOOL_TIMEOUT, an Agent and its own turns, AskUserQuestion waiting on a person) run as they are; every other
 * tool gets `YOKE_TOOL_TIMEOUT_MS` (10 minutes). At the deadline its signal aborts (the searches, WebFetch and
 * the walks stop on it) and the call comes back as an is_error result naming the limit, so the run goes on.
 * A tool stuck in synchronous code cannot be preempted; the limits inside each tool (file sizes, line caps) keep
 * that work finite.
 */
import { truncateMiddle } from "../tool/define-tool.ts";
import type { Tool, ToolContext, ToolResult } from "../tool/types.ts";
import { boundsItself, MAX_TOOL_RESULT_CHARS } from "./tool-bounds.ts";

export const DEFAULT_TOOL_TIMEOUT_MS = 600_000;

/** Tools with a bound of their own: the `own` rows of src/loop/tool-bounds.ts and MCP tools. */
const selfBounded = (name: string) => boundsItself(name);

/**
 * Every result's text cut to MAX_TOOL_RESULT_CHARS, head and tail kept: tools made with defineTool cut lower
 * already; a tool a plugin or host registered as a bare Tool is held to this (issue 20.5). Mutates and returns.
 */
export function capResult(result: ToolResult): ToolResult {
  if (typeof result.content === "string") result.content = truncateMiddle(result.content, MAX_TOOL_RESULT_CHARS);
  else if (Array.isArray(result.content))
    for (const b of result.content) if (b.type === "text" && b.text.length > MAX_TOOL_RESULT_CHARS) b.text = truncateMiddle(b.text, MAX_TOOL_RESULT_CHARS);
  return result;
}

/** The deadline for a tool, from YOKE_TOOL_TIMEOUT_MS; undefined for a tool that bounds itself. Pure. */
export function toolDeadlineMs(name: string, env: Record<string, string | undefined>): number | undefined {
  if (selfBounded(name)) return undefined;
  const n = Number(env.YOKE_TOOL_TIMEOUT_MS);
  return Number.isFinite(n) && n > 0 ? Math.min(n, 2_147_483_647) : DEFAULT_TOOL_TIMEOUT_MS;
}

const secs = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);

/** Runs the tool under its deadline. Never throws more than the tool itself does. */
export async function runWithDeadline(tool: Pick<Tool, "name" | "run">, input: unknown, ctx: ToolContext): Promise<ToolResult> {
  return capResult(await runTimed(tool, input, ctx));
}

async function runTimed(tool: Pick<Tool, "name" | "run">, input: unknown, ctx: ToolContext): Promise<ToolResult> {
  const ms = toolDeadlineMs(tool.name, ctx.env);
  if (ms === undefined) return tool.run(input as never, ctx);
  const ctrl = new AbortController();
  const onParent = () => ctrl.abort(ctx.signal.reason);
  if (ctx.signal.aborted) ctrl.abort(ctx.signal.reason);
  else ctx.signal.addEventListener("abort", onParent, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<ToolResult>((resolve) => {
    timer = setTimeout(() => {
      const why = `${tool.name} did not finish within ${secs(ms)} (YOKE_TOOL_TIMEOUT_MS) and was stopped. Try a narrower request (a smaller path, a more specific pattern).`;
      ctrl.abort(new Error(why));
      resolve({ content: why, isError: true });
    }, ms);
  });
  try {
    return await Promise.race([tool.run(input as never, { ...ctx, signal: ctrl.signal }), deadline]);
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onParent);
  }
}
