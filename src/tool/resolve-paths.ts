import { isAbsolute, join, resolve } from "node:path";
import { userHome } from "../util/home.ts";

/** The input fields that name one file (Read, Write, Edit, MultiEdit, NotebookEdit). */
const PATH_KEYS = ["file_path", "notebook_path"] as const;

/**
 * Claude Code resolves a relative `file_path` / `notebook_path` against the cwd (and `~/` against the home
 * folder) before hooks, permission rules and the tool see it, so hooks always get absolute paths (contracts §1.4
 * PreToolUse). Returns the same object when nothing changes. Pure.
 */
export function absolutizePaths(input: Record<string, unknown>, cwd: string, home: string = userHome()): Record<string, unknown> {
  let out = input;
  for (const k of PATH_KEYS) {
    const v = input[k];
    if (typeof v !== "string" || v === "" || isAbsolute(v)) continue;
    const abs = v === "~" ? home : v.startsWith("~/") ? join(home, v.slice(2)) : resolve(cwd, v);
    if (out === input) out = { ...input };
    out[k] = abs;
  }
  return out;
}
