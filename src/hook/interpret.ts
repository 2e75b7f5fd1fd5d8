import type { CommandRun } from "./command.ts";
import { capText, type EventSpec, type HandlerResult, type HookJsonOutput } from "./events/common.ts";
import type { HookRecord } from "./types.ts";

const pathOf = (p: PropertyKey[]) => p.map(String).join(".") || "(top level)";

/** Validates handler JSON against the event's output schema; the error names the first bad fields. */
export function validateOutput(spec: EventSpec, value: unknown): { output?: HookJsonOutput; error?: string } {
  const r = spec.output().safeParse(value);
  if (r.success) return { output: r.data as HookJsonOutput };
  const issues = r.error.issues.slice(0, 3).map((i) => `field "${pathOf(i.path)}": ${i.message}`);
  return { error: `output does not match the ${spec.name} hook output schema (${issues.join("; ")})` };
}

/** contracts §1.5: stdout is JSON iff its first non-whitespace character is `{`. */
export function parseStdoutJson(spec: EventSpec, stdout: string): { isJson: boolean; output?: HookJsonOutput; error?: string } {
  const t = stdout.trim();
  if (!t.startsWith("{")) return { isJson: false };
  let raw: unknown;
  try {
    raw = JSON.parse(t);
  } catch (e) {
    const preview = t.length > 160 ? `${t.slice(0, 160)}…` : t;
    return { isJson: true, error: `stdout starts with "{" but is not valid JSON (${(e as Error).message}): ${JSON.stringify(preview)}` };
  }
  return { isJson: true, ...validateOutput(spec, raw) };
}

const firstLine = (s: string) => s.trim().split("\n")[0] ?? "";

/**
 * An interpreter that exits 2 because the hook script is missing (Python: "can't open file …
 * [Errno 2]") has not denied anything. Claude Code reads this as a block and locks the tool out
 * (user-demand #12, CC#80697); yoke reports it as a hook that could not start.
 */
const MISSING_SCRIPT = /can't open file .*\[Errno 2\] No such file or directory/;

export type CommandContext = {
  spec: EventSpec;
  /** e.g. `PreToolUse:Bash`. */
  hookName: string;
  /** The command as configured (exec form joined). */
  label: string;
  /** Settings file that defined it. */
  path: string;
  timeoutMs: number;
  onFailureBlock: boolean;
  /** Set for a plugin's hook: an exit-2 block names the plugin, as Claude Code does. */
  pluginId?: string;
  /** How failures name a hook that is not a command (`mcp_tool hook srv/tool`); default `hook command "<label>"`. */
  what?: string;
};

/**
 * Observed in 2.1.332: a plugin hook's exit-2 block ends with the plugin that set it up (JSON reasons do not), on
 * the line after the verbatim stderr ("x\n" gives "x\n\nThis hook…", "x\n\n" gives "x\n\n\nThis hook…").
 */
const fromPlugin = (pluginId: string | undefined) => (pluginId ? `\nThis hook comes from the ${pluginId} plugin.` : "");

/**
 * Turns one finished command-hook process into a HandlerResult by Claude Code's exit-code table
 * (contracts §1.5): 0 success (JSON or plain stdout), 2 blocking error (`[command]: stderr`, or the
 * JSON reason), other non-blocking unless stdout is schema-valid JSON, which then decides alone.
 * Failures (cannot start, timeout, bad JSON, other exit) name the command and its settings file,
 * and become blocking errors under `onFailure: "block"`. Pure; never throws.
 */
export function interpretCommandRun(run: CommandRun, c: CommandContext): HandlerResult {
  const where = `${c.what ?? `hook command "${c.label}"`} (${c.path})`;
  const record: HookRecord = {
    source: `${c.what ? c.what.replace(/ hook /, ": ") : `command: ${c.label}`} (${c.path})`,
    command: c.label,
    hookName: c.hookName,
    exitCode: run.exitCode,
    stdout: run.stdout,
    stderr: run.stderr,
    durationMs: Math.round(run.durationMs * 1000) / 1000,
    outcome: "success",
  };
  const result: HandlerResult = { record };
  let failure: string | undefined;
  if (run.spawnError !== undefined) failure = `${where} could not start: ${run.spawnError}`;
  else if (run.timedOut) {
    record.outcome = "timeout";
    failure = `${where} timed out after ${c.timeoutMs / 1000} s and was killed`;
  } else if (run.cancelled) {
    record.outcome = "cancelled";
    record.error = `${where} was cancelled`;
    return result;
  } else if (run.exitCode === null) failure = `${where} was killed by ${run.signal ?? "a signal"}`;
  if (failure === undefined) {
    const parsed = parseStdoutJson(c.spec, run.stdout);
    if (run.exitCode === 2 && !parsed.output && MISSING_SCRIPT.test(run.stderr)) {
      failure = `${where} could not start: ${firstLine(run.stderr)}`;
    } else if (run.exitCode === 2) {
      record.outcome = "blocking";
      if (parsed.output) result.output = parsed.output;
      const hso = (parsed.output?.hookSpecificOutput ?? {}) as Record<string, unknown>;
      const jsonReason = [hso.permissionDecisionReason, parsed.output?.reason].find((v) => typeof v === "string" && v);
      // Observed in 2.1.332: the stderr goes on verbatim, its trailing newlines kept (to the model, the transcript, the UI).
      result.blockingError = capText((jsonReason as string | undefined) ?? `[${c.label}]: ${run.stderr.trim() ? run.stderr : "No stderr output"}${fromPlugin(c.pluginId)}`);
    } else if (parsed.output) {
      // contracts §1.5 / §9: JSON on a non-0/2 exit is honoured if schema-valid.
      result.output = parsed.output;
      if (run.exitCode !== 0) record.outcome = "non_blocking_error";
    } else if (parsed.error) failure = `${where}: ${parsed.error}`;
    else if (run.exitCode !== 0) {
      const line = firstLine(run.stderr);
      failure =
        run.exitCode === 127 || run.exitCode === 126
          ? `${where} could not start (exit ${run.exitCode}${line ? `: ${line}` : ""})`
          : `${where} failed with non-blocking status code ${run.exitCode}${line ? `: ${line}` : ""}${
              // user-demand #12 (CC#44707): exit 1 looks like a block to hook authors but is not one.
              c.spec.canBlock ? " (only exit 2 or a JSON decision blocks; this did not)" : ""
            }`;
    } else if (!parsed.isJson) result.plainStdout = run.stdout;
  }
  if (failure !== undefined) {
    if (record.outcome === "success") record.outcome = "non_blocking_error";
    record.error = failure;
    // A PreToolUse guard killed before it answered fails closed: the call needs approval (headless: denied).
    // Claude Code lets the call through as if the hook had said nothing (issue 16 point 8).
    if (record.outcome === "timeout" && c.spec.name === "PreToolUse" && !c.onFailureBlock)
      result.output = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: `${failure} before it answered, so the call needs approval` } };
    if (c.onFailureBlock) {
      record.outcome = "blocking";
      result.blockingError = `${failure}; the hook has onFailure "block", so this counts as a block.`;
    }
  }
  if (run.truncated) record.error = `${record.error ? `${record.error}; ` : ""}output over the capture limit was dropped`;
  return result;
}
