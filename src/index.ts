/**
 * The public plugin SDK: what a plugin imports as `yoke`. The first-party plugins in plugins/ import only
 * this (a test fails on a path import of src/), and a user's TypeScript plugin loaded by the compiled
 * binary gets it as the virtual module `yoke` (plugin/loader.ts). Everything here is a type, a pure
 * function or a factory: no singletons, nothing that runs at import.
 */
import type { JsonToolDef, Plugin } from "./plugin/types.ts";
import { jsonTool } from "./tool/json-tool.ts";
import type { Tool } from "./tool/types.ts";

export type {
  ForkOptions,
  ForkResult,
  HookAnswer,
  HookHandler,
  HookJsonOutput,
  InProcessHookHandler,
  JsonToolDef,
  Plugin,
  PluginHost,
  SessionView,
  SummaryProvider,
} from "./plugin/types.ts";
export type { HookEventName } from "./hook/types.ts";
export type { HookPayload, HookResult } from "./hook/events/index.ts";
export type { ContentBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock } from "./provider/types.ts";
export type { Tool, ToolContext, ToolResult } from "./tool/types.ts";
export type { MemoryHeader } from "./context/relevant-memory.ts";

/** Types a plugin object (`export default definePlugin({ name, version, setup(host) { … } })`); returns it unchanged. */
export const definePlugin = <P extends Plugin>(plugin: P): P => plugin;

/**
 * A tool from a plain JSON Schema, for `host.tools.register` or a fork's `extraTools`: input validated
 * against the schema, `execute` returning text or a ToolResult, a throw turned into an is_error result.
 * Throws, naming the tool, when the schema cannot be read.
 */
export const defineTool = (def: JsonToolDef): Tool => jsonTool(def);

export { parseFrontmatter, splitFrontmatter, type Frontmatter } from "./util/frontmatter.ts";
export { redactSecrets, redactTokens } from "./util/redact.ts";
export { scanMemoryFiles } from "./context/relevant-memory.ts";
export { findFiles, type FindFilesOptions } from "./util/find-files.ts";
