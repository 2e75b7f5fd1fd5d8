import { SettingsError } from "../config/load.ts";
import type { ParsedArgs } from "./args.ts";
import { UsageError } from "./args.ts";
import type { Runtime } from "./compose.ts";
import { checkPrintFlags } from "./print-flags.ts";
import { runDiagnostics } from "./run-diagnostics.ts";
import { runPrelude, type RunPrelude } from "./run-prelude.ts";
import type { InitializeRequest, Prompt, StdinSession } from "./stdin.ts";
import type { HostSession } from "./control/host.ts";
import type { HostInit } from "./control/initialize.ts";
import { onStdoutClosed, writeErr } from "../util/output.ts";

// This module loads little: a run's prelude (settings, session, the checks that can refuse it, and the spawn of its
// MCP servers, run-prelude.ts) runs before the rest of yoke is loaded, so the servers start while it loads (issue 21).

const NO_INPUT = "Error: Input must be provided either through stdin or as a prompt argument when using --print";

const fail = (msg: string): number => {
  writeErr(`${msg}\n`);
  return 1;
};

/** `yoke -p`: compose, wire signals, run, exit with a truthful code. */
export async function runHeadless(args: ParsedArgs): Promise<number> {
  const rewindTo = typeof args.flags["rewind-files"] === "string" ? (args.flags["rewind-files"] as string) : undefined;
  if (rewindTo !== undefined && args.positionals.length === 0) args.flags.print = true;
  // Without a terminal on stdin (a pipe, CI) a run is headless as if -p was given; the interactive session
  // (src/tui) needs stdin and stdout both on a terminal, and main.ts sends it there before this.
  if (!args.flags.print) {
    if (process.stdin.isTTY)
      return fail("yoke: the interactive session needs a terminal on stdout too (it is redirected): run `yoke -p \"your prompt\"` to print the answer. See `yoke --help`.");
    args.flags.print = true;
  }
  // One diagnostics channel for the run, made before stdin is read so its warnings go the same way.
  const log = runDiagnostics(args);
  for (const f of args.ignored ?? []) log.warn(`${f} is a Claude Code option yoke does not support yet; it is ignored.`);
  let format;
  try {
    format = checkPrintFlags(args);
  } catch (e) {
    if (e instanceof UsageError) return fail(e.message);
    throw e;
  }
  const promptTool = args.flags["permission-prompt-tool"];
  if (promptTool !== undefined && promptTool !== "stdio")
    return fail(`error: --permission-prompt-tool supports only "stdio" (got '${String(promptTool)}'); MCP permission tools are not supported yet`);
  if (promptTool === "stdio" && format.inputFormat !== "stream-json")
    return fail("error: --permission-prompt-tool stdio needs --input-format stream-json (the host answers on stdin)");
  // stream-json: the host's first message is read before composing, because the Agent SDK's `initialize` carries
  // the system prompt, agents, output schema and hooks (contracts §4.7). Claude Code too writes nothing before it.
  let control: StdinSession | undefined;
  let init: InitializeRequest | null = null;
  let hostInit: HostInit | null = null;
  if (format.inputFormat === "stream-json") {
    const { stdinSession, applyInitialize, readInitialize } = await import("./headless-stream.ts");
    control = stdinSession({ warn: (m) => log.warn(m) });
    init = await control.initialize;
    if (init) {
      try {
        hostInit = readInitialize(init.request);
        applyInitialize(hostInit, args);
      } catch (e) {
        control.respond(init.requestId, { error: (e as Error).message });
        return fail(`yoke: ${(e as Error).message}`);
      }
    }
  }
  // A prompt-only run reads its prompt first: a run without one is refused before its prelude spawns any MCP server.
  let prompt = args.positionals.join(" ");
  if (!control && rewindTo === undefined) {
    if (!prompt && !process.stdin.isTTY) prompt = (await Bun.stdin.text()).trim();
    if (!prompt) return fail(NO_INPUT);
  }
  let rt: Runtime;
  let runPrint: typeof import("./print-mode.ts").runPrint;
  try {
    const cwd = process.cwd();
    const prelude: RunPrelude = runPrelude({ args, cwd, log, interactive: false, requireCredentials: true });
    performance.mark("yoke:prelude");
    // The rest of yoke loads while the MCP servers start (one module: one chunk of the binary to read).
    const rest = await import("./headless-rest.ts");
    const { compose, builtinTools } = rest;
    runPrint = rest.runPrint;
    performance.mark("yoke:headless-loaded");
    // SessionStart starts while composing only when the prompt is already known (a run that ends first fires none).
    const startSessionStart = !control && rewindTo === undefined;
    rt = await compose({ args, cwd, builtinTools: builtinTools(), log, startSessionStart, earlyPrompt: startSessionStart ? prompt : undefined, prelude });
    performance.mark("yoke:composed");
  } catch (e) {
    if (e instanceof SettingsError || e instanceof UsageError) {
      // The SDK shows an error answer to initialize with its message (a bare exit code says nothing).
      if (init) control?.respond(init.requestId, { error: e.message });
      return fail(`yoke: ${e.message}`);
    }
    throw e;
  }
  if (rewindTo !== undefined) {
    const code = await rewindFilesAtStartup(rt, rewindTo);
    if (code !== 0 || args.positionals.length === 0) {
      await rt.shutdown();
      return code;
    }
  }
  const ctrl = new AbortController();
  let exitSignal: number | null = null;
  const onSignal = (sig: NodeJS.Signals) => {
    if (exitSignal !== null) process.exit(exitSignal); // a second signal: leave at once
    exitSignal = sig === "SIGINT" ? 130 : sig === "SIGHUP" ? 129 : 143;
    ctrl.abort();
    // The loop ends on abort; this is the backstop if something refuses to.
    setTimeout(() => process.exit(exitSignal ?? 1), 3000).unref();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // The terminal went away (ssh dropped): end as on SIGTERM, transcript whole, children stopped (issue 20.8).
  process.on("SIGHUP", onSignal);
  // The reader of stdout went away (`yoke -p … | head`): end the run as SIGPIPE would end a shell tool,
  // quietly, with the transcript as far as it got (exit 141 = 128 + SIGPIPE).
  onStdoutClosed(() => {
    exitSignal ??= 141;
    ctrl.abort();
  });

  let prompts: AsyncIterable<Prompt>;
  let host: HostSession | undefined;
  if (control) {
    prompts = control.prompts;
    // contracts §4.6: with --permission-prompt-tool stdio an `ask` becomes a can_use_tool request to the host.
    const { attachHost } = await import("./headless-stream.ts");
    host = await attachHost({ rt, control, init, hostInit, askHost: promptTool === "stdio" });
  } else {
    // The prompt read before the prelude (with --rewind-files: the one to run after the rewind).
    prompts = (async function* () {
      yield prompt;
    })();
  }
  try {
    const code = await runPrint(rt, prompts, format.format, args, ctrl.signal, host);
    return exitSignal ?? code;
  } finally {
    performance.mark("yoke:shutdown");
    await rt.shutdown();
  }
}

/** `--rewind-files UUID` with --resume/--continue: files back to before that user message, then the prompt (if any) runs. */
async function rewindFilesAtStartup(rt: Runtime, uuid: string): Promise<number> {
  // The prelude refused the flag without --resume/--continue, without checkpoints or for an unknown turn.
  if (!rt.checkpoints) return fail("yoke: --rewind-files: file checkpoints are off in this session (--no-session-persistence)");
  const r = await rt.checkpoints.rewindFiles(uuid);
  for (const p of r.restored) rt.log.log(`restored ${p}`);
  for (const p of r.deleted) rt.log.log(`deleted ${p}`);
  for (const e of r.errors) rt.log.error(`--rewind-files: ${e}`);
  return r.errors.length ? 1 : 0;
}
