import { fileTools } from "../tool/builtin/file-tools.ts";
import { createWebFetchTool, searchTools } from "../tool/builtin/search-tools.ts";
import { webSearchTool } from "../tool/builtin/web-search.ts";
import { shellTools } from "../tool/builtin/shell-tools.ts";
import type { Tool } from "../tool/types.ts";

/** Every built-in tool, in the order the model sees them (the Agent tool is added by compose). */
export function builtinTools(): Tool[] {
  const [bash, ...sessionTools] = shellTools;
  return [bash!, ...searchTools, ...fileTools, createWebFetchTool(), webSearchTool, ...sessionTools];
}
