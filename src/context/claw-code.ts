import { readFileSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { estimateTokens, type InstructionFile, type InstructionSet } from "./types.ts";

// claw-code's prompt.rs, the version the seeds describe (seed 002, internals §1.2).
export const CLAW_MAX_FILE_CHARS = 4_000;
export const CLAW_MAX_TOTAL_CHARS = 12_000;
export const CLAW_TRUNCATED_MARKER = "\n\n[truncated]";
export const CLAW_OMITTED_LINE = "_Additional instruction content omitted after reaching the prompt budget._";
export const CLAW_HEADER = "# Claude instructions";
const OMITTED_REASON = "omitted: the 12,000-character total instruction budget is used up";

const CANDIDATES = ["CLAUDE.md", "CLAUDE.local.md", join(".claude", "CLAUDE.md"), join(".claude", "instructions.md")];

/** Per line trim_end, blank runs collapsed to one, whole text trimmed. */
export function normalizeInstructionContent(text: string): string {
  return collapseBlankLines(text.split(/\r?\n/).map((l) => l.trimEnd()).join("\n")).trim();
}

/** Runs of blank lines become one blank line; a trailing newline is kept. */
export function collapseBlankLines(text: string): string {
  const out: string[] = [];
  let prevBlank = false;
  const lines = text.split("\n");
  const trailing = text.endsWith("\n");
  if (trailing) lines.pop();
  for (const line of lines) {
    const blank = line.trim() === "";
    if (blank && prevBlank) continue;
    out.push(line);
    prevBlank = blank;
  }
  return out.join("\n") + (trailing ? "\n" : "");
}

/** Keeps the first `limit` Unicode scalars of the trimmed text, then the `[truncated]` marker. */
export function truncateInstructionContent(text: string, limit: number): string {
  const chars = Array.from(text.trim());
  if (chars.length <= limit) return chars.join("");
  return chars.slice(0, limit).join("") + CLAW_TRUNCATED_MARKER;
}

/** How claw-code shows a path in a heading: the file name only. */
export const displayContextPath = (path: string): string => basename(path);

/**
 * claw-code discovery: cwd and every ancestor up to `/`, outermost first; four candidates each;
 * duplicates by normalized content dropped (the first keeps its text); then the per-file and
 * total budgets. Never throws: a candidate that is a directory or unreadable is "skipped".
 */
export function discoverClawInstructions(opts: { cwd: string; probes?: Set<string> }): InstructionSet {
  const dirs: string[] = [];
  for (let d = resolve(opts.cwd); ; d = dirname(d)) {
    dirs.push(d);
    if (dirname(d) === d) break;
  }
  dirs.reverse();
  const files: InstructionFile[] = [];
  const seen = new Map<string, string>();
  for (const d of dirs) {
    for (const c of CANDIDATES) {
      const path = join(d, c);
      opts.probes?.add(path);
      const layer = c === "CLAUDE.local.md" ? "local" : "project";
      let text: string;
      let size: number;
      try {
        const st = statSync(path, { throwIfNoEntry: false });
        if (!st) continue;
        size = st.size;
        if (!st.isFile()) {
          files.push({ layer, path, size, tokens: 0, status: "skipped", reason: "not a regular file", content: "", loader: "claw-code" });
          continue;
        }
        text = readFileSync(path, "utf8");
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") continue;
        files.push({ layer, path, size: 0, tokens: 0, status: "skipped", reason: `unreadable: ${(e as Error).message}`, content: "", loader: "claw-code" });
        continue;
      }
      if (!text.trim()) continue;
      const key = normalizeInstructionContent(text);
      const first = seen.get(key);
      if (first) {
        files.push({ layer, path, size, tokens: 0, status: "deduplicated", reason: `same content as ${first}`, content: "", loader: "claw-code" });
        continue;
      }
      seen.set(key, path);
      files.push({ layer, path, size, tokens: 0, status: "included", content: text, loader: "claw-code" });
    }
  }
  applyClawBudget(files);
  return { loader: "claw-code", files, onFileRead: () => [] };
}

/** Applies the per-file and total budgets in place and sets each file's `scope` (internals §1.2). */
export function applyClawBudget(files: InstructionFile[]): void {
  const kept = files.filter((f) => f.status === "included" || f.status === "truncated");
  let remaining = CLAW_MAX_TOTAL_CHARS;
  for (const f of kept) {
    f.scope = scopeOf(f.path, kept);
    if (remaining === 0) {
      Object.assign(f, { status: "skipped", reason: OMITTED_REASON, content: "", tokens: 0 });
      continue;
    }
    const original = f.content.trim();
    const limit = Math.min(CLAW_MAX_FILE_CHARS, remaining);
    const rendered = truncateInstructionContent(truncateInstructionContent(original, limit), CLAW_MAX_FILE_CHARS);
    const n = Array.from(rendered).length;
    remaining -= Math.min(n, remaining);
    f.content = rendered;
    f.tokens = estimateTokens(rendered);
    f.loadReason = "session_start";
    if (rendered !== original) {
      f.status = "truncated";
      f.reason = `cut at ${limit.toLocaleString("en-US")} characters (${limit === CLAW_MAX_FILE_CHARS ? "per-file" : "remaining total"} budget)`;
    }
  }
}

// The parent of the first listed file whose directory is a path-prefix of this file's (claw-code's quirk).
function scopeOf(path: string, files: InstructionFile[]): string {
  for (const f of files) {
    const parent = dirname(f.path);
    if (path.startsWith(parent)) return parent;
  }
  return "workspace";
}

/** `# Claude instructions`, then `## {file name} (scope: {dir})` and the content of each file; the omitted line last. */
export function renderClawInstructions(files: InstructionFile[]): string {
  const sections: string[] = [];
  for (const f of files) {
    if (f.status !== "included" && f.status !== "truncated") continue;
    sections.push(`## ${displayContextPath(f.path)} (scope: ${f.scope ?? dirname(f.path)})`, f.content);
  }
  if (files.some((f) => f.reason === OMITTED_REASON)) sections.push(CLAW_OMITTED_LINE);
  if (sections.length === 0) return "";
  return [CLAW_HEADER, ...sections].join("\n\n");
}
