/** The Bash sandbox's part of the composition root: settings and rules in, one BashSandbox out. */
import type { LoadedSettings } from "../config/load.ts";
import { claudeUserDir } from "../config/paths.ts";
import type { Evaluator } from "../permission/index.ts";
import { type BashSandboxInput, createBashSandbox, SandboxUnavailableError, type SandboxSetup } from "../sandbox/index.ts";
import { sandboxSettingsOf } from "../sandbox/admin-paths.ts";
import { sandboxWish } from "../sandbox/deps.ts";
import { defaultSessionTempDir } from "../tool/builtin/shell-exec.ts";
import { UsageError } from "./args.ts";

/**
 * Sets the sandbox up from the evaluator's rules and says once on stderr when it was wanted but cannot
 * start here. Throws UsageError when it was required (`sandbox.enabled: true`, `failIfUnavailable`,
 * YOKE_SANDBOX=1) and cannot start.
 */
export async function wireSandbox(o: {
  settings: LoadedSettings;
  env: Record<string, string>;
  permissions: Evaluator;
  sessionId: string;
  yokeDir: string;
  warn: (line: string) => void;
}): Promise<SandboxSetup> {
  let sb: SandboxSetup;
  try {
    sb = await createBashSandbox({
      // bwrapPath / socatPath only from managed settings: a checkout must not choose the program the sandbox is.
      settings: sandboxSettingsOf(o.settings, o.warn),
      env: o.env,
      // A getter: rules added while the session runs (addRules, apply_flag_settings) reach the next command.
      rules: () => o.permissions.ruleSet,
      workingDirectories: o.permissions.workingDirectories,
      scratch: [defaultSessionTempDir(o.env, o.sessionId)],
      yokeDir: o.yokeDir,
      claudeDir: claudeUserDir(o.env),
      warn: o.warn,
    });
  } catch (e) {
    if (e instanceof SandboxUnavailableError) throw new UsageError(e.message);
    throw e;
  }
  if (sb.notice) o.warn(sb.notice);
  if (!sb.active && sb.wish.want !== "off") o.warn(`the Bash sandbox is off: ${sb.reason}; Bash commands are checked by the permission rules alone`);
  return sb;
}

/** Whether wireSandbox may refuse the run: only a sandbox that is required (asked for by name, YOKE_SANDBOX=1). */
export function sandboxMayRefuse(settings: LoadedSettings, env: Record<string, string>): boolean {
  const wish = sandboxWish(settings.merged.sandbox, env);
  return wish.want === "on" && wish.required;
}

/** `autoAllowBashIfSandboxed` for the evaluator: this input runs inside an active sandbox that auto-allows. */
export const sandboxAutoAllow = (sb: () => SandboxSetup | undefined) => (input: Record<string, unknown>): boolean => {
  const s = sb();
  return !!s?.active && s.autoAllow && typeof input.command === "string" && s.covers(input as BashSandboxInput);
};

/** The evaluator's `sandboxEscape`: the sandbox is on, and this input leaves it by `dangerouslyDisableSandbox`. */
export const sandboxEscape = (sb: () => SandboxSetup | undefined) => (input: Record<string, unknown>): boolean => {
  const s = sb();
  return !!s?.active && input.dangerouslyDisableSandbox === true && typeof input.command === "string" && !s.covers(input as BashSandboxInput);
};
