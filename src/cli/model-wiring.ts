import type { LoadedSettings } from "../config/load.ts";
import { checkModelParamSources, effortFor, type ModelParamSources, modelParams } from "../provider/model-params.ts";
import type { ParsedArgs } from "./args.ts";
import { UsageError } from "./args.ts";

const str = (a: ParsedArgs, k: string) => (typeof a.flags[k] === "string" ? (a.flags[k] as string) : undefined);

const sourcesOf = (args: ParsedArgs, settings: LoadedSettings, env: Record<string, string>, sessionEffort?: () => string | undefined): ModelParamSources => ({
  env,
  settings: { alwaysThinkingEnabled: settings.merged.alwaysThinkingEnabled, effortLevel: settings.merged.effortLevel },
  effortFlag: str(args, "effort"),
  thinkingFlag: str(args, "thinking"),
  maxThinkingTokensFlag: str(args, "max-thinking-tokens"),
  thinkingDisplayFlag: str(args, "thinking-display"),
  streamJson: args.flags["output-format"] === "stream-json",
  ...(sessionEffort ? { sessionEffort } : {}),
});

/**
 * `--effort`, `--thinking`, `--max-thinking-tokens` and their env and settings counterparts checked: run-prelude.ts
 * calls this before any MCP server is spawned, so a bad value refuses the run with nothing started. Throws
 * UsageError naming the flag, variable or settings key.
 */
export function checkModelFlags(args: ParsedArgs, settings: LoadedSettings, env: Record<string, string>): void {
  try {
    checkModelParamSources(sourcesOf(args, settings, env));
  } catch (e) {
    throw new UsageError(`${(e as Error).message}`);
  }
}

/**
 * Thinking, effort and max_tokens for the session's requests, from flags, env, settings and `/effort`
 * (the session's own effort). Throws UsageError naming a bad value.
 */
export function modelWiring(args: ParsedArgs, settings: LoadedSettings, env: Record<string, string>, sessionEffort: () => string | undefined) {
  checkModelFlags(args, settings, env);
  const sources = sourcesOf(args, settings, env, sessionEffort);
  return {
    params: (model: string) => modelParams(model, sources),
    /** The Agent SDK's set_max_thinking_tokens: a budget for the rest of the session (null: back to the flags' and env's). */
    setMaxThinkingTokens: (n: number | null) => {
      sources.maxThinkingTokensFlag = n === null ? str(args, "max-thinking-tokens") : String(n);
    },
    effort: (model: string) => effortFor(model, sources),
  };
}

/** CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: Stop-hook blocks in a row before the turn ends anyway (default 8). */
export function stopHookBlockCap(env: Record<string, string | undefined>): number {
  const v = env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP;
  if (v === undefined || v.trim() === "") return 8;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`CLAUDE_CODE_STOP_HOOK_BLOCK_CAP must be a whole number of blocks (got '${v}')`);
  return n;
}
