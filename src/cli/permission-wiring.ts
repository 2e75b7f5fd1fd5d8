/**
 * The permission half of the composition root, shared by `yoke -p` (compose.ts) and
 * `yoke permissions explain`, so that explain decides exactly as a run would: same settings files,
 * same flags, same mode resolution, same working directories.
 */
import type { LoadedSettings } from "../config/load.ts";
import { resolveAutoMemory } from "../context/auto-memory.ts";
import { createPermissionEvaluator, type Evaluator } from "../permission/index.ts";
import type { EvaluatorOptions } from "../permission/evaluator.ts";
import { autoModeDisabledBy } from "../permission/modes.ts";
import type { PermissionMode } from "../permission/types.ts";
import type { ParsedArgs } from "./args.ts";
const flagList = (a: ParsedArgs, k: string) => (Array.isArray(a.flags[k]) ? (a.flags[k] as string[]) : []);

export { loadSettingsFromArgs, modeProblem, parsePermissionMode, resolvePermissionMode } from "./run-mode.ts";
export { settingSourcesOf } from "./settings-args.ts";

/** The auto-memory folder file tools may write to without asking, as a run computes it. Never throws. */
export function memoryWriteDirs(o: { cwd: string; env: Record<string, string>; settings: LoadedSettings; bare: boolean }): string[] {
  const m = resolveAutoMemory({ cwd: o.cwd, env: o.env, settings: o.settings, bare: o.bare });
  return m.enabled && m.dir ? [m.dir] : [];
}

/**
 * The session's evaluator from the run flags (`--add-dir`, `--allowedTools`, `--disallowedTools`).
 * Never throws; bad rules land in `warnings` with their file and index.
 */
export function buildPermissionEvaluator(o: {
  args: ParsedArgs;
  cwd: string;
  settings: LoadedSettings;
  env: Record<string, string>;
  mode: PermissionMode;
  autoAllowWriteDirs: string[];
  declarations?: EvaluatorOptions["declarations"];
  sandboxAutoAllow?: (input: Record<string, unknown>) => boolean;
  sandboxEscape?: (input: Record<string, unknown>) => boolean;
}): Evaluator {
  return createPermissionEvaluator({
    settings: o.settings,
    mode: o.mode,
    cwd: o.cwd,
    addDirs: flagList(o.args, "add-dir"),
    allowedTools: flagList(o.args, "allowedTools"),
    disallowedTools: flagList(o.args, "disallowedTools"),
    env: o.env,
    autoAllowWriteDirs: o.autoAllowWriteDirs,
    declarations: o.declarations,
    sandboxAutoAllow: o.sandboxAutoAllow,
    sandboxEscape: o.sandboxEscape,
    autoModeDisabled: autoModeDisabledBy(o.settings),
  });
}
