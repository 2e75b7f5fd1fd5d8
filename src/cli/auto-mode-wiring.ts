/** Auto mode's part of the composition root: settings in, one AutoMode (classifier + breaker + denial log) out. */
import type { LoadedSettings } from "../config/load.ts";
import type { UsageTracker } from "../loop/usage.ts";
import { type AutoMode, createAutoMode } from "../permission/auto/auto-mode.ts";
import { createClassifier } from "../permission/auto/classifier.ts";
import { denialLogPath, recordDenial } from "../permission/auto/denial-log.ts";
import type { PermissionRule } from "../permission/types.ts";
import { resolveModel, SMALL_MODEL_ALIAS } from "../provider/models.ts";
import type { Provider } from "../provider/types.ts";
import { autoModeDisabledBy } from "../permission/modes.ts";
export { autoModeDisabledBy } from "../permission/modes.ts";

/** Settings levels that may configure the classifier: a committed project file may not tell it what to allow. */
const CLASSIFIER_LEVELS = new Set(["user", "local", "flag", "managed"]);


const list = (v: unknown): string[] => (typeof v === "string" ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** `autoMode.classifierModel` (last trusted level wins) and the guidance lines, in level order. Pure. */
export function autoModeSettings(settings: LoadedSettings): { model?: string; instructions: string[] } {
  let model: string | undefined;
  const instructions: string[] = [];
  for (const s of settings.sources) {
    const a = s.settings.autoMode;
    if (!a || !CLASSIFIER_LEVELS.has(s.level)) continue;
    if (typeof a.classifierModel === "string" && a.classifierModel.trim()) model = a.classifierModel.trim();
    instructions.push(...list(a.instructions));
    instructions.push(...list(a.environment).map((x) => `Environment: ${x}`));
    instructions.push(...list(a.allow).map((x) => `Allow: ${x}`));
    instructions.push(...list(a.soft_deny).map((x) => `Block unless the user clearly asked for it: ${x}`));
    instructions.push(...list(a.hard_deny).map((x) => `Always block, whatever the user said: ${x}`));
  }
  return { model, instructions };
}

const DEFAULT_TIMEOUT_MS = 60_000;

/** Never throws; returns undefined when settings disable auto mode. */
export function wireAutoMode(o: {
  settings: LoadedSettings;
  env: Record<string, string>;
  provider: Provider;
  usage: UsageTracker;
  rules: () => PermissionRule[];
  sessionId: string;
  cwd: string;
  warn: (message: string) => void;
}): AutoMode | undefined {
  if (autoModeDisabledBy(o.settings)) return undefined;
  const cfg = autoModeSettings(o.settings);
  const timeout = Number(o.env.YOKE_AUTO_MODE_TIMEOUT_MS);
  const classify = createClassifier({
    provider: o.provider,
    model: resolveModel(cfg.model ?? o.env.ANTHROPIC_SMALL_FAST_MODEL ?? SMALL_MODEL_ALIAS),
    instructions: () => cfg.instructions,
    usage: o.usage,
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS,
  });
  const file = denialLogPath(o.cwd, o.env);
  return createAutoMode({
    classify,
    rules: () => {
      const all = o.rules();
      const of = (l: "allow" | "ask" | "deny") => all.filter((r) => r.source.list === l).map((r) => r.text);
      return { allow: of("allow"), ask: of("ask"), deny: of("deny") };
    },
    sessionId: o.sessionId,
    record: (d) => recordDenial(file, d),
    warn: o.warn,
  });
}
