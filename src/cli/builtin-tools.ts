import { fileTools } from "../tool/builtin/file-tools.ts";
import { shellTools } from "../tool/builtin/shell-tools.ts";
import type { Tool } from "../tool/types.ts";

/** Every built-in tool, in the order the model sees them. */
export function builtinTools(): Tool[] {
  return [...shellTools.slice(0, 1), ...fileTools, ...shellTools.slice(1)];
}
