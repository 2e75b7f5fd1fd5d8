/** The hook module's public surface, for the loop, the CLI and plugins. */
export { createHookBus, hookBaseEnv } from "./bus.ts";
export type { HookBusOptions, HookListing, InProcessHandler, InProcessOptions, RuleMatcher, YokeHookBus } from "./bus.ts";
export { runHookCommand } from "./command.ts";
export type { CommandRun, CommandRunOptions } from "./command.ts";
export { collectSettingsHooks, hookPolicy } from "./config.ts";
export type { ConfiguredHook, HookPolicy } from "./config.ts";
export { buildPayload, EVENT_SPECS, eventKeys, isHookEventName } from "./events/index.ts";
export type { CommonFields, EventSpec, HandlerResult, HookJsonOutput, HookPayload, HookResult } from "./events/index.ts";
export { generateSchemas } from "./gen-schemas.ts";
export { interpretCommandRun } from "./interpret.ts";
export { isInvalidMatcher, matcherMatches } from "./matcher.ts";
export { sessionEnvFile, sessionEnvFiles } from "./session-env.ts";
export { dryRunPayload, formatHookList, formatHookRun, listHooks, runHooksDry } from "./tooling.ts";
export type { DryRunOptions } from "./tooling.ts";
export * from "./types.ts";
