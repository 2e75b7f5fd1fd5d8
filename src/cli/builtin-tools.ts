import { fileTools } from "../tool/builtin/file-tools.ts";
import type { Tool } from "../tool/types.ts";

/** Every built-in tool, in the order the model sees them. */
export function builtinTools(): Tool[] {
  return [...fileTools];
}
