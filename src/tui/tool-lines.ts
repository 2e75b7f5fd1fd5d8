import { existsSync, readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { structuredPatch, type Hunk } from "../tool/structured-patch.ts";
import { style } from "./theme.ts";

/** How each tool call reads on one line: the tool and the argument that says what it does. Pure, never throws. */
export function keyArgument(name: string, input: Record<string, unknown>, cwd: string): string {
  const str = (k: string) => (typeof input[k] === "string" ? (input[k] as string) : undefined);
  const path = (p: string | undefined) => {
    if (!p) return undefined;
    const rel = relative(cwd, resolve(cwd, p));
    return rel && !rel.startsWith("..") ? rel : p;
  };
  let arg: string | undefined;
  switch (name) {
    case "Bash":
      arg = str("command");
      break;
    case "Read":
    case "Write":
    case "Edit":
    case "MultiEdit":
      arg = path(str("file_path"));
      break;
    case "NotebookEdit":
      arg = path(str("notebook_path"));
      break;
    case "Glob":
    case "Grep":
      arg = str("pattern");
      break;
    case "WebFetch":
      arg = str("url");
      break;
    case "WebSearch":
      arg = str("query");
      break;
    case "Agent":
    case "Task":
      arg = str("description");
      break;
    case "TodoWrite":
      arg = Array.isArray(input.todos) ? `${input.todos.length} todos` : undefined;
      break;
    default:
      arg = Object.values(input).find((v): v is string => typeof v === "string");
  }
  return oneLine(arg ?? "");
}

/** First line only, control characters out (a tool input must not move the cursor or change colours). */
export function oneLine(s: string, max = 160): string {
  const first = s.split("\n")[0]!.replace(/[\x00-\x1f\x7f]/g, " ");
  const more = s.includes("\n") ? " …" : "";
  return first.length > max ? `${first.slice(0, max - 1)}…` : first + more;
}

export type ToolStatus = { state: "running" } | { state: "done"; ms: number } | { state: "error"; ms: number; message: string } | { state: "denied"; reason: string };

/** `● Bash(npm test) · 1.2s` with the status coloured. */
export function toolLine(name: string, arg: string, status: ToolStatus): string {
  const head = `${style.bold(name)}${arg ? `(${arg})` : ""}`;
  switch (status.state) {
    case "running":
      return `${style.yellow("●")} ${head} ${style.gray("running…")}`;
    case "done":
      return `${style.green("●")} ${head} ${style.gray(seconds(status.ms))}`;
    case "error":
      return `${style.red("●")} ${head} ${style.gray(seconds(status.ms))}\n  ${style.red(`⎿ ${oneLine(status.message, 200)}`)}`;
    case "denied":
      return `${style.red("●")} ${head}\n  ${style.red(`⎿ denied: ${oneLine(status.reason, 200)}`)}`;
  }
}

export const seconds = (ms: number) => (ms < 1000 ? `${Math.max(0, Math.round(ms))}ms` : `${(ms / 1000).toFixed(1)}s`);

/** Hunks as coloured lines (`-` red, `+` green), at most `max` lines with a count of the rest. */
export function diffLines(hunks: Hunk[], max = 30): string[] {
  const out: string[] = [];
  for (const h of hunks) {
    out.push(style.gray(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`));
    for (const l of h.lines) if (!l.startsWith("\\")) out.push(l.startsWith("+") ? style.green(l) : l.startsWith("-") ? style.red(l) : style.gray(l));
  }
  if (out.length <= max) return out;
  return [...out.slice(0, max), style.gray(`… ${out.length - max} more lines`)];
}

/** The diff an Edit/MultiEdit/Write call would make (for the permission prompt), or undefined for other tools. */
export function proposedDiff(name: string, input: Record<string, unknown>, cwd: string): Hunk[] | undefined {
  const file = typeof input.file_path === "string" ? resolve(cwd, input.file_path) : undefined;
  if (name === "Edit" && typeof input.old_string === "string" && typeof input.new_string === "string")
    return structuredPatch(input.old_string, input.new_string);
  if (name === "MultiEdit" && Array.isArray(input.edits))
    return input.edits.flatMap((e: any) => (typeof e?.old_string === "string" && typeof e?.new_string === "string" ? structuredPatch(e.old_string, e.new_string) : []));
  if (name === "Write" && typeof input.content === "string") {
    let old = "";
    try {
      if (file && existsSync(file)) old = readFileSync(file, "utf8");
    } catch {
      // Unreadable: shown as a new file; the tool itself reports the real failure.
    }
    return structuredPatch(old, input.content);
  }
  return undefined;
}

/** The patch a finished edit reports in its details (Edit/MultiEdit/Write `structuredPatch`), if any. */
export function resultPatch(details: unknown): Hunk[] | undefined {
  const p = (details as { structuredPatch?: unknown } | null | undefined)?.structuredPatch;
  return Array.isArray(p) && p.length ? (p as Hunk[]) : undefined;
}
