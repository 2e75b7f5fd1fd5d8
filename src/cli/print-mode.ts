import { randomUUID } from "../util/random.ts";
import { recordSessionStart } from "../loop/hook-feedback.ts";
import type { LoopEvent, TurnResult } from "../loop/events.ts";
import { promptTurn } from "./prompt-turn.ts";
import { sessionStartOutcome } from "./session-start.ts";
import { writeLastPrompt, writePromptQueued } from "../session/prompt-lines.ts";
import { trustInitField } from "../trust/workspace.ts";
import { VERSION } from "../version.ts";
import type { ParsedArgs } from "./args.ts";
import type { Runtime } from "./compose.ts";
import { resultMessage, retryNotice, streamJsonLines } from "./render.ts";
import type { HostSession } from "./control/host.ts";
import type { Prompt } from "./stdin.ts";
import { stdoutReady, writeErr, writeOut, writeOutAtEnd } from "../util/output.ts";

export { checkPrintFlags, type OutputFormat } from "./print-flags.ts";
import type { OutputFormat } from "./print-flags.ts";

const write = (line: string) => writeOut(`${line}\n`);

const backgroundCapMs = (env: Record<string, string>) => {
  const n = Number(env.YOKE_BACKGROUND_CAP_MS);
  return Number.isFinite(n) && n >= 0 && env.YOKE_BACKGROUND_CAP_MS ? n : 60_000;
};

export function initMessage(rt: Runtime): Record<string, unknown> {
  return {
    type: "system",
    subtype: "init",
    cwd: rt.cwd,
    session_id: rt.sessionId,
    // Claude Code lists the subagent tool under its legacy name here (contracts §4.4).
    tools: rt.tools.list().map((t) => (t.name === "Agent" ? "Task" : t.name)),
    // Servers the Agent SDK host serves in-process are marked as Claude Code marks them.
    mcp_servers: rt.mcp.servers().map((s) => ({ name: s.name, status: s.status, ...(s.scope === "sdk" ? { source: "sdk" } : {}) })),
    model: rt.model,
    permissionMode: rt.permissions.mode,
    slash_commands: ["compact", "effort", ...rt.extensions.list().map((c) => c.name), ...rt.mcp.promptCommands()],
    terminal_slash_commands: [],
    apiKeySource: rt.apiKeySource,
    claude_code_version: VERSION,
    yoke_version: VERSION,
    output_style: rt.outputStyle?.name ?? "default",
    agents: rt.agents,
    skills: rt.extensions.commands.filter((c) => c.kind === "skill").map((c) => c.name),
    plugins: rt.plugins.loaded.map((p) => ({ name: p.kind === "yoke" ? p.plugin.name : p.info.name, path: p.path })),
    // yoke's own field: which of this folder's settings, hooks, MCP servers and plugins were held back (src/trust).
    ...(rt.settings.trust ? { yoke_workspace_trust: trustInitField(rt.settings.trust) } : {}),
    // Protocol features a host may rely on (2.1.332 lists many more; yoke names only those it implements).
    capabilities: ["interrupt_receipt_v1"],
    original_cwd: rt.cwd,
    additional_directories: rt.permissions.workingDirectories.slice(1),
    fast_mode_state: "off",
    uuid: randomUUID(),
    sandbox_enabled: rt.sandbox.active,
    // yoke: why Bash runs without the kernel sandbox (a setting, YOKE_SANDBOX, or what this machine lacks).
    ...(rt.sandbox.active ? {} : { sandbox_reason: rt.sandbox.reason }),
  };
}

/** Runs one headless turn per prompt and renders it. Returns the process exit code. */
export async function runPrint(
  rt: Runtime,
  prompts: AsyncIterable<Prompt>,
  format: OutputFormat,
  args: ParsedArgs,
  signal: AbortSignal,
  /** The Agent SDK host (stream-json input): told of each turn so its interrupt reaches it. */
  host?: HostSession,
): Promise<number> {
  let turnCtrl: AbortController | null = null;
  const sj = { sessionId: rt.sessionId, uuid: randomUUID, partial: !!args.flags["include-partial-messages"], now: () => new Date(), replay: !!args.flags["replay-user-messages"] };
  const render = (ev: LoopEvent) => {
    // Every wait is said, in every format (issue 20.3, 17.12): attempt, wait, cause.
    if (ev.type === "api_retry") writeErr(`${retryNotice(ev.info, ev.cause)}\n`);
    if (format === "stream-json") for (const line of streamJsonLines(ev, sj)) write(JSON.stringify(line));
    // contracts §1.6: a hook's systemMessage is shown to the user; stdout is the result's, so it goes to stderr.
    // Hook failures are reported once already, as they finish (compose onRecord).
    else if (ev.type === "system" && ev.subtype === "informational" && typeof ev.data.content === "string" && !/^\S+ hook error: /.test(ev.data.content))
      writeErr(`${ev.data.content}\n`);
  };
  rt.outbox.setSink(render);
  const emit = render;
  const early = rt.earlySubmit;
  const onAbortEarly = () => early?.abort();
  if (early) {
    // SessionStart's outcome was recorded, and the prompt's UserPromptSubmit hooks started, while composing (early-submit.ts).
    signal.addEventListener("abort", onAbortEarly, { once: true });
    if (signal.aborted) onAbortEarly();
    await early.sessionStarted;
  } else {
    // Started while composing when headless knew a prompt would run (src/cli/session-start.ts); else fired now.
    const out = await sessionStartOutcome(rt.sessionStart, { hooks: rt.hooks, hookPayload: rt.hookPayload, source: rt.sessionSource, model: rt.model }, signal);
    if (out) {
      rt.sessionStartContext.push(...recordSessionStart(rt.transcript, out));
      for (const m of out.systemMessages) writeErr(`${m}\n`);
    }
  }
  if (format === "stream-json") write(JSON.stringify(initMessage(rt)));
  let last: TurnResult | null = null;
  const streamedInput = args.flags["input-format"] === "stream-json";
  for await (const prompt of prompts) {
    turnCtrl = new AbortController();
    host?.setTurn(turnCtrl);
    const onAbort = () => turnCtrl?.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    // Compaction, effort, skills, custom and MCP commands: the same for every mode (src/cli/prompt-turn.ts).
    const gen = await promptTurn(rt, prompt, turnCtrl.signal, !args.flags["disable-slash-commands"]);
    if (!early?.takeQueued(prompt)) writePromptQueued(rt.transcript, prompt, () => new Date());
    for (;;) {
      const step = await gen.next();
      if (step.done) {
        last = step.value;
        break;
      }
      emit(step.value);
      await stdoutReady(); // a slow reader paces the run instead of growing yoke's memory
    }
    signal.removeEventListener("abort", onAbort);
    writeLastPrompt(rt.transcript, prompt);
    turnCtrl = null;
    host?.setTurn(null);
    // Plugin work started in this turn (memory extraction) finishes before a one-shot run reports. With streamed
    // input the client waits for this result before its next prompt, so the work runs on beside it and is drained at exit.
    if (!signal.aborted && !streamedInput) await rt.plugins.background.drain(backgroundCapMs(rt.env));
    if (format === "stream-json") emit({ type: "result", result: last });
    if (signal.aborted) break;
  }
  signal.removeEventListener("abort", onAbortEarly);
  if (streamedInput && !signal.aborted) await rt.plugins.background.drain(backgroundCapMs(rt.env));
  if (rt.hooks.has("SessionEnd"))
    await rt.hooks.emit("SessionEnd", rt.hookPayload("SessionEnd", { reason: "other" }), { matchValue: "other" });
  await rt.hooks.drainAsync(5000);
  if (!last) return 0;
  // The answer is the run's only stdout in these formats: written without making Node's stream (writeOutAtEnd).
  if (format === "json") writeOutAtEnd(`${JSON.stringify(resultMessage(last, rt.sessionId, randomUUID()))}\n`);
  if (format === "text") writeOutAtEnd(`${last.subtype === "success" ? last.result : last.errors.join("\n") || last.result}\n`);
  // Claude Code exits 0 on every success, and the Agent SDK throws on any other code. Exit 3 (the model gave up on a
  // permission denial, see TurnResult.endedOnDenial) is an opt-in signal for CI.
  return last.isError ? 1 : last.endedOnDenial && args.flags["exit-code-on-denial"] ? 3 : 0;
}
