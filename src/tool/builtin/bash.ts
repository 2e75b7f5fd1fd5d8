import type { ShellChild } from "./shell-child.ts";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { z } from "zod";
import { errLine } from "../../util/output.ts";
import { defineTool, truncateMiddle } from "../define-tool.ts";
import { INPUT_SCHEMAS } from "../input-schemas.ts";
import type { ToolContext, ToolResult } from "../types.ts";
import type { WrapResult } from "../../sandbox/index.ts";
import description from "./bash.md" with { type: "text" };
import { lingeringGroups, startBackgroundShell } from "./background-shells.ts";
import { benignExit } from "./exit-semantics.ts";
import { runsDirect, signalLine } from "./bash-direct.ts";
import { markEach } from "../../util/mark-each.ts";
import {
  byteCollector,
  envInt,
  exitStatus,
  killGroup,
  sessionTempDir,
  shellLine,
  type ShellSpawn,
  spawnShellPiped,
  spawnWrapped,
  spillSink,
  DEFAULT_SPILL_MAX_BYTES,
} from "./shell-exec.ts";

// contracts §7.2 (Bash): defaults and env overrides.
export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;
export const DEFAULT_MAX_OUTPUT_CHARS = 30_000;
/** How long to wait for the output pipes to close after the shell itself exited. */
const PIPE_GRACE_MS = 200;

const input = () => z.object({
  command: z.string().refine((s) => s.trim().length > 0, "command must not be empty").describe("The shell command to run"),
  timeout: z
    .number()
    .positive()
    .optional()
    .describe(`Timeout in milliseconds (default ${DEFAULT_TIMEOUT_MS}, max ${MAX_TIMEOUT_MS})`),
  description: z.string().optional().describe("What the command does, in 5-10 words, active voice"),
  run_in_background: z
    .boolean()
    .optional()
    .describe("Start the command in the background and return at once; read its output with BashOutput"),
  dangerouslyDisableSandbox: z
    .boolean()
    .optional()
    .describe("Run outside the sandbox. Only when the sandbox blocked something the command needs; the call then goes through the normal permission checks"),
});

export type BashInput = z.infer<ReturnType<typeof input>>;

/** The Bash `tool_response` (contracts §1.4). */
export type BashDetails = {
  stdout: string;
  stderr: string;
  interrupted: boolean;
  isImage: false;
  noOutputExpected: false;
  backgroundTaskId?: string;
};

const details = (stdout: string, stderr: string, interrupted: boolean, extra: Partial<BashDetails> = {}): BashDetails => ({
  stdout,
  stderr,
  interrupted,
  isImage: false,
  noOutputExpected: false,
  ...extra,
});

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

function isInside(dir: string, roots: string[]): boolean {
  return roots.some((r) => {
    const root = real(r);
    return dir === root || dir.startsWith(root.endsWith(sep) ? root : root + sep);
  });
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** The directory to run in; falls back to the project dir when the session cwd vanished. */
function startDir(ctx: ToolContext): { cwd: string; note?: string } {
  const cwd = ctx.session.cwd || ctx.cwd;
  if (isDir(cwd)) return { cwd };
  ctx.session.cwd = ctx.projectDir;
  return { cwd: ctx.projectDir, note: `The working directory ${cwd} no longer exists; the command ran in ${ctx.projectDir} instead.` };
}

function timeoutFor(ctx: ToolContext, requested?: number): number {
  const def = envInt(ctx.env, "BASH_DEFAULT_TIMEOUT_MS", DEFAULT_TIMEOUT_MS);
  const max = Math.max(envInt(ctx.env, "BASH_MAX_TIMEOUT_MS", MAX_TIMEOUT_MS), def);
  return Math.min(requested ?? def, max);
}

const trimNewlines = (s: string) => s.replace(/^\n+|\n+$/g, "");

async function runForeground(inp: BashInput, ctx: ToolContext): Promise<ToolResult> {
  const { cwd, note: startNote } = startDir(ctx);
  const timeoutMs = timeoutFor(ctx, inp.timeout);
  const maxChars = envInt(ctx.env, "BASH_MAX_OUTPUT_LENGTH", DEFAULT_MAX_OUTPUT_CHARS);
  const tag = `${Date.now()}-${Math.random().toString(36).slice(2, 10)}`;
  // A plain program needs no wrapper, hence no cwd file (bash-direct.ts); a sandboxed call keeps the wrapper.
  const direct = !sandboxes(ctx, inp) && runsDirect(inp.command, ctx.session.envFiles, ctx.env);
  const pwdFile = direct ? undefined : join(sessionTempDir(ctx), `cwd-${tag}`);
  const launched = await launch(ctx, inp, { command: inp.command, cwd, env: ctx.env, envFiles: ctx.session.envFiles, pwdFile, direct });
  markEach("bash-launched");
  if ("error" in launched) return sandboxFailure(launched.error);
  const { child, sandboxed, placeholders, kept } = launched;
  // The sandboxed line says on fd 3 when it is set up and the command starts; nothing there means it never did.
  let announced = false;
  const announcing = sandboxed ? (child.stdio[3] as NodeJS.ReadableStream | null | undefined) : undefined;
  const announceEnd = announcing ? new Promise<void>((r) => (announcing.once("close", () => r()), announcing.once("error", () => r()))) : Promise.resolve();
  announcing?.on("data", () => (announced = true));
  // Keep up to 4 bytes per allowed character at each end: enough for any UTF-8 before the final cut.
  const out = byteCollector(maxChars * 4);
  const err = byteCollector(maxChars * 4);
  const spill = spillSink(maxChars, () => join(sessionTempDir(ctx), `bash-output-${tag}.txt`), envInt(ctx.env, "YOKE_SPILL_MAX_BYTES", DEFAULT_SPILL_MAX_BYTES));
  let collecting = true;
  for (const [stream, sink] of [[child.stdout, out], [child.stderr, err]] as const) {
    stream?.on("data", (c: Uint8Array) => {
      if (!collecting) return;
      sink.push(c);
      spill.push(c);
      ctx.progress?.(c);
    });
  }

  let why: "timeout" | "abort" | undefined;
  let killing: Promise<void> | undefined;
  const stop = (reason: "timeout" | "abort") => {
    if (why) return;
    why = reason;
    if (child.pid) killing = killGroup(child.pid);
  };
  const timer = setTimeout(() => stop("timeout"), timeoutMs);
  const onAbort = () => stop("abort");
  ctx.signal.addEventListener("abort", onAbort, { once: true });

  const closed = new Promise<void>((r) => child.once("close", () => r()));
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((res) => {
    child.once("exit", (code, signal) => res({ code, signal }));
    child.once("error", (error) => res({ code: 127, signal: null, error }));
  });
  markEach("bash-exited");
  clearTimeout(timer);
  ctx.signal.removeEventListener("abort", onAbort);
  const removed = sandboxed ? (ctx.sandbox?.release(placeholders) ?? []) : [];
  if (killing) await killing;
  const drained = await Promise.race([closed.then(() => true), Bun.sleep(PIPE_GRACE_MS).then(() => false)]);
  let lingerNote: string | undefined;
  if (!drained) {
    // A background child still holds the pipe. Stop collecting but keep draining so it never
    // blocks on a full pipe; it lives on until it ends or the session ends.
    collecting = false;
    const pid = child.pid;
    if (pid) {
      const lingering = lingeringGroups(ctx.session);
      lingering.add(pid);
      closed.then(() => lingering.delete(pid));
    }
    for (const s of [child.stdout, child.stderr]) (s as unknown as { unref?: () => void } | null)?.unref?.();
    lingerNote =
      "Note: a process started by this command is still running and holding the command's output; its further output is discarded. Start long-running processes with run_in_background: true to read their output.";
  }

  // No collector markers: the final cut always spans them and reports the omitted bytes.
  const stdout = trimNewlines(out.text(false));
  let stderr = trimNewlines(err.text(false));
  if (exit.error) stderr = [stderr, `Failed to start the shell: ${exit.error.message}`].filter(Boolean).join("\n");
  // Run directly, the command's death by a signal has no shell left to say it: say it as bash would have.
  const killedBy = direct && !why ? signalLine(exit.signal, child.pid, inp.command) : undefined;
  if (killedBy) stderr = [stderr, killedBy].filter(Boolean).join("\n");
  const code = exit.error ? 127 : exitStatus(exit.code, exit.signal);

  const notes: string[] = [];
  if (startNote) notes.push(startNote);
  const cwdNote = why || !pwdFile ? undefined : updateCwd(ctx, pwdFile);
  if (pwdFile) rmSync(pwdFile, { force: true });
  if (cwdNote) notes.push(cwdNote);
  if (lingerNote) notes.push(lingerNote);
  const removedText = removedNote(removed);
  if (removedText) notes.push(removedText);

  spill.close();
  const combined = [stdout, stderr].filter(Boolean).join("\n");
  const cutting = combined.length > maxChars;
  if (cutting && spill.file) {
    notes.push(
      spill.cutBytes
        ? `The last part of the output (stdout and stderr as they arrived; the first ${spill.cutBytes} bytes were cut to cap the file) is in ${spill.file}; read or grep that file for the omitted part.`
        : `The complete output (stdout and stderr as they arrived) is in ${spill.file}; read or grep that file for the omitted part.`,
    );
  } else if (spill.file) rmSync(spill.file, { force: true });
  // Notes share the limit with the output so the whole result stays within BASH_MAX_OUTPUT_LENGTH.
  const noteChars = notes.reduce((n, s) => n + s.length + 2, 0);
  const body = cutting ? truncateMiddle(combined, Math.max(200, maxChars - noteChars), out.omitted + err.omitted) : combined;
  const interrupted = why !== undefined;
  const withNotes = (text: string) => [text, ...notes].filter(Boolean).join("\n\n");
  const d = details(truncateMiddle(stdout, maxChars, out.omitted), truncateMiddle(stderr, maxChars, err.omitted), interrupted);
  if (why === "timeout") {
    const head = `Command timed out after ${timeoutMs / 1000}s and its process group was killed. Raise timeout (max ${timeoutFor(ctx, Number.MAX_SAFE_INTEGER)} ms) or use run_in_background for long-running commands.`;
    return { content: withNotes([head, body].filter(Boolean).join("\n")), isError: true, details: d };
  }
  if (why === "abort") {
    return { content: withNotes(["Command interrupted by the user; its process group was killed.", body].filter(Boolean).join("\n")), isError: true, details: d };
  }
  // The sandbox's own word, not the command's output, tells a failed start (a command may print `bwrap: …` itself).
  if (sandboxed && !announced) await Promise.race([announceEnd, Bun.sleep(PIPE_GRACE_MS)]);
  if (sandboxed && !announced && ctx.sandbox) return sandboxStartFailure(ctx.sandbox.notStarted(kept, stderr), d);
  const benign = code === 0 ? undefined : benignExit(inp.command, code);
  if (benign) return { content: withNotes([body, `(exit code ${code}: ${benign})`].filter(Boolean).join("\n")), details: d };
  if (code !== 0) return { content: withNotes(`Exit code ${code}${body ? `\n${body}` : ""}`), isError: true, details: d };
  return { content: withNotes(body || "(Bash completed with no output)"), details: d };
}

/** Applies the directory the command ended in; returns a note for the model when it was refused. */
function updateCwd(ctx: ToolContext, pwdFile: string): string | undefined {
  if (!existsSync(pwdFile)) return undefined;
  const ended = readFileSync(pwdFile, "utf8").replace(/\n$/, "");
  if (!ended || ended === real(ctx.session.cwd)) return undefined;
  if (isInside(ended, ctx.workingDirectories)) {
    ctx.session.cwd = ended;
    return undefined;
  }
  return `The command changed directory to ${ended}, which is outside the allowed working directories, so the working directory stays ${ctx.session.cwd}. Use absolute paths or add the directory to the allowed ones.`;
}

/**
 * Starts the shell, inside the session's sandbox when it covers this call. A sandbox that cannot wrap
 * the command comes back as an error and nothing is started: the command never runs unsandboxed for it.
 */
const sandboxes = (ctx: ToolContext, inp: BashInput): boolean => !!ctx.sandbox?.active && ctx.sandbox.covers(inp);

async function launch(ctx: ToolContext, inp: BashInput, o: ShellSpawn): Promise<{ child: ShellChild; sandboxed: boolean; placeholders: string[]; kept: boolean } | { error: string }> {
  const sb = ctx.sandbox;
  if (!sb || !sandboxes(ctx, inp)) return { child: spawnShellPiped(o), sandboxed: false, placeholders: [], kept: false };
  const env = sandboxEnv(ctx, o.env);
  const w = await sb.wrap(shellLine(o), o.cwd, { announce: true, env });
  if (!w.ok) return { error: w.error };
  return { child: spawnWrapped(w.command, { cwd: o.cwd, env, announceFd: true, direct: w.direct }), sandboxed: true, placeholders: w.placeholders, kept: w.kept };
}

const SECRET_ENV = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"];

/** Inside the sandbox /tmp is read-only: temporary files go to a folder in the session's scratch dir. */
function sandboxEnv(ctx: ToolContext, env: Record<string, string>): Record<string, string> {
  const tmp = join(sessionTempDir(ctx), "tmp");
  mkdirSync(tmp, { recursive: true });
  const out: Record<string, string> = { ...env, TMPDIR: tmp, TMP: tmp, TEMP: tmp };
  // yoke's own credentials stay with yoke: a sandboxed command has no use for them (and no network to use them on).
  for (const k of SECRET_ENV) delete out[k];
  return out;
}

/** What the model is told when the sandbox undid a protected file the command created. */
const removedNote = (removed: string[]) =>
  removed.length
    ? `The sandbox removed ${removed.join(", ")}: commands may not create these (they configure shells, git, editors or agents). Use the Write tool, which asks the user.`
    : undefined;

function sandboxFailure(cause: string, d: BashDetails = details("", "", false)): ToolResult {
  errLine(`yoke: Bash sandbox: ${cause}`);
  return {
    content: `The command did not run: ${cause}. Tell the user the sandbox failed and why; do not retry the same way.`,
    isError: true,
    details: d,
  };
}

/** A command the sandbox failed to start: `message` (start-failure.ts) names what failed and what to do. */
function sandboxStartFailure(message: string, d: BashDetails): ToolResult {
  errLine(`yoke: Bash sandbox: ${message}`);
  return { content: `The sandbox failed: ${message}.`, isError: true, details: d };
}

async function runBackground(inp: BashInput, ctx: ToolContext): Promise<ToolResult> {
  const { cwd, note } = startDir(ctx);
  const sb = ctx.sandbox;
  let wrapped: Extract<WrapResult, { ok: true }> | undefined;
  let placeholders: string[] = [];
  if (sb?.active && sb.covers(inp)) {
    const w = await sb.wrap(shellLine({ command: inp.command, cwd, env: ctx.env, envFiles: ctx.session.envFiles }), cwd);
    if (!w.ok) return sandboxFailure(w.error);
    wrapped = w;
    placeholders = w.placeholders;
  }
  const sh = startBackgroundShell(ctx, {
    command: inp.command,
    description: inp.description,
    cwd,
    timeoutMs: inp.timeout,
    launch: wrapped ? (o) => spawnWrapped(wrapped.command, { cwd: o.cwd, env: sandboxEnv(ctx, o.env), direct: wrapped.direct }) : undefined,
    onEnd: wrapped ? () => void sb?.release(placeholders) : undefined,
  });
  const text = [
    // Claude Code's wording (observed in 2.1.332): scripts and models look for "with ID: <id>".
    `Command running in background with ID: ${sh.id}.`,
    `Read its new output with BashOutput (bash_id "${sh.id}"), stop it with TaskStop (task_id "${sh.id}").`,
    `All of its output is also written to ${sh.outputFile} (past ${envInt(ctx.env, "YOKE_SPILL_MAX_BYTES", DEFAULT_SPILL_MAX_BYTES)} bytes the newest part is kept and its first line says what was cut).`,
    note,
  ]
    .filter(Boolean)
    .join("\n");
  return { content: text, details: details("", "", false, { backgroundTaskId: sh.id }) };
}

/** Runs a shell command (contracts §7.2 Bash). Failures come back as is_error results. */
export const bashTool = defineTool({
  name: "Bash",
  description,
  input,
  jsonSchema: INPUT_SCHEMAS.Bash,
  readOnly: false,
  concurrencySafe: false,
  maxResultChars: 1_000_000,
  execute: (inp, ctx) => (inp.run_in_background ? runBackground(inp, ctx) : runForeground(inp, ctx)),
});
