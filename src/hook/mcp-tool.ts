import { clampTimerMs, type CommandRun } from "./command.ts";

/**
 * `mcp_tool` hooks (contracts §1.2: `server`, `tool`, `input`): a tool of a connected MCP server is called with the
 * hook's `input`, whose strings take `${path}` from the hook payload (`${tool_input.file_path}`, `${session_id}`).
 * Observed in 2.1.332: the tool's text is the hook's stdout and goes through the command hooks' JSON decision rules;
 * an `isError` result is exit 1 with the text on stdout and stderr; a server that is not connected is exit 1 with
 * "MCP server 'NAME' not connected" on stderr; `${path}` of an object is its JSON, of nothing is "". The result
 * comes back as a CommandRun so one interpreter decides for every hook type.
 */
export type McpToolCaller = (
  server: string,
  tool: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<{ content?: Array<{ type: string; text?: string }>; isError?: boolean }>;

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\}/g;

function lookup(payload: Record<string, unknown>, path: string): string {
  let v: unknown = payload;
  for (const k of path.split(".")) v = v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
  if (v === undefined || v === null) return "";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** `${path}` in every string of `input` (nested objects and arrays too), from the payload. Pure. */
export function interpolateHookInput(input: unknown, payload: Record<string, unknown>): unknown {
  if (typeof input === "string") return input.replace(PLACEHOLDER, (_, path: string) => lookup(payload, path));
  if (Array.isArray(input)) return input.map((x) => interpolateHookInput(x, payload));
  if (input && typeof input === "object") return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, interpolateHookInput(v, payload)]));
  return input;
}

const run = (started: number, r: Partial<CommandRun>): CommandRun => ({
  exitCode: null,
  stdout: "",
  stderr: "",
  timedOut: false,
  cancelled: false,
  truncated: false,
  ...r,
  durationMs: performance.now() - started,
});

/** Runs a handler's work under the hook's timeout and the step's abort, mapping both onto CommandRun. */
export async function bounded(
  timeoutMs: number,
  signal: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<Partial<CommandRun>>,
): Promise<CommandRun> {
  const started = performance.now();
  if (signal?.aborted) return run(started, { cancelled: true });
  const ac = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ac.abort(new Error("timed out"));
  }, clampTimerMs(timeoutMs));
  const onAbort = () => ac.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  // A caller that ignores its signal must not hold the hook past its time.
  const stopped = new Promise<Partial<CommandRun>>((r) => ac.signal.addEventListener("abort", () => r({}), { once: true }));
  try {
    const r = await Promise.race([work(ac.signal).catch((e: unknown) => ({ exitCode: 1, stderr: e instanceof Error ? e.message : String(e) })), stopped]);
    if (timedOut) return run(started, { timedOut: true });
    if (signal?.aborted) return run(started, { cancelled: true });
    return run(started, r);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

export function runMcpToolHook(o: {
  handler: Record<string, unknown>;
  payload: Record<string, unknown>;
  call: McpToolCaller | undefined;
  timeoutMs: number;
  signal?: AbortSignal;
}): Promise<CommandRun> {
  const server = typeof o.handler.server === "string" ? o.handler.server : "";
  const tool = typeof o.handler.tool === "string" ? o.handler.tool : "";
  if (!server || !tool) return Promise.resolve(run(performance.now(), { spawnError: `an mcp_tool hook needs "server" and "tool" (strings)` }));
  const raw = o.handler.input ?? {};
  if (typeof raw !== "object" || Array.isArray(raw)) return Promise.resolve(run(performance.now(), { spawnError: `"input" of an mcp_tool hook must be an object` }));
  const args = interpolateHookInput(raw, o.payload) as Record<string, unknown>;
  return bounded(o.timeoutMs, o.signal, async (signal) => {
    if (!o.call) return { exitCode: 1, stderr: `MCP server '${server}' not connected` };
    const r = await o.call(server, tool, args, signal);
    const text = (r.content ?? [])
      .filter((c) => c.type === "text" && typeof c.text === "string")
      .map((c) => c.text)
      .join("\n");
    return r.isError ? { exitCode: 1, stdout: text, stderr: text } : { exitCode: 0, stdout: text };
  });
}
