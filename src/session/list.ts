import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { sessionsRoots, transcriptDir } from "../config/paths.ts";
import type { ContentBlock } from "../provider/types.ts";
import type { SessionEntry } from "./types.ts";

type Env = Record<string, string | undefined>;

export type SessionRow = {
  id: string;
  path: string;
  mtime: Date;
  /** First real user prompt (not a tool result, meta or compact summary), cut to 200 chars; '' if none. */
  firstPrompt: string;
  /** Number of real user prompts. */
  turns: number;
  /** File size in bytes. */
  size: number;
  /** entrypoint of the first line ("cli", "sdk-cli" …), '' if unknown; --continue filters on it (contracts §5.3). */
  entrypoint: string;
  /** custom-title / ai-title / summary line, if any. */
  title?: string;
};

/**
 * The text of a real user prompt (not a tool result, meta line, compact summary or subagent line),
 * with injected `<system-reminder>` blocks left out; null for any other line. Never throws.
 */
export function userPromptText(e: SessionEntry): string | null {
  if (e.type !== "user" || e.isMeta || e.isCompactSummary || e.isSidechain || !e.message) return null;
  const content = e.message.content;
  if (typeof content === "string") return content;
  if (content.some((b) => b.type === "tool_result")) return null;
  // Injected context (instruction files, memory, hook output) rides in <system-reminder> blocks before the prompt.
  const t = content
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .filter((x) => !x.trimStart().startsWith("<system-reminder>"));
  return t.length ? t.join("\n") : content.some((b) => b.type === "text") ? "" : null;
}

/** Summarises one transcript without keeping its entries. Never throws (unreadable → null). */
export function sessionRow(path: string): SessionRow | null {
  let buf: Buffer;
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
    buf = readFileSync(path);
  } catch {
    return null;
  }
  let firstPrompt = "";
  let turns = 0;
  let entrypoint = "";
  let title: string | undefined;
  let start = 0;
  while (start < buf.length) {
    let end = buf.indexOf(10, start);
    if (end === -1) end = buf.length;
    // Only parse lines that can matter; the rest are skipped by a byte search.
    const line = buf.subarray(start, end);
    // Tool-result and meta lines are most user lines in a long session; rule them out without parsing.
    const isUser = line.indexOf('"type":"user"') !== -1 && line.indexOf('"type":"tool_result"') === -1 && line.indexOf('"isMeta":true') === -1;
    const isTitle = !isUser && (line.indexOf('"type":"custom-title"') !== -1 || line.indexOf('"type":"ai-title"') !== -1 || line.indexOf('"type":"summary"') !== -1);
    if (isUser || isTitle || entrypoint === "") {
      try {
        const v = JSON.parse(buf.toString("utf8", start, end)) as Record<string, unknown>;
        if (entrypoint === "" && typeof v.entrypoint === "string") entrypoint = v.entrypoint;
        const text = v.type === "user" ? userPromptText(v as unknown as SessionEntry) : null;
        if (text !== null) {
          turns++;
          if (!firstPrompt) firstPrompt = text.replace(/\s+/g, " ").trim().slice(0, 200);
        } else if (v.type === "custom-title" && typeof v.customTitle === "string") title = v.customTitle;
        else if (v.type === "ai-title" && typeof v.aiTitle === "string" && title === undefined) title = v.aiTitle;
        else if (v.type === "summary" && typeof v.summary === "string" && title === undefined) title = v.summary;
      } catch {
        // corrupt or torn line: listing stays best-effort
      }
    }
    start = end + 1;
  }
  const row: SessionRow = { id: basename(path, ".jsonl"), path, mtime: st.mtime, firstPrompt, turns, size: st.size, entrypoint };
  if (title !== undefined) row.title = title;
  return row;
}

const jsonlIn = (dir: string): string[] => {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
};

/** Sessions of one project directory, newest first. Never throws (no directory → []). */
export function listSessions(cwd: string, env: Env = process.env): SessionRow[] {
  return jsonlIn(transcriptDir(cwd, env))
    .map(sessionRow)
    .filter((r): r is SessionRow => r !== null)
    .sort((a, b) => b.mtime.getTime() - a.mtime.getTime());
}

export type FindResult = { ok: true; id: string; path: string } | { ok: false; error: string };

/**
 * Finds a session by full id or unique id prefix: current project dir first, then every project
 * (contracts §5.3; `worktrees` = the repo's other worktree paths, searched second). Never throws;
 * not found / ambiguous comes back as `{ ok:false, error }`.
 */
export function findSession(idOrPrefix: string, cwd: string, env: Env = process.env, opts: { worktrees?: string[] } = {}): FindResult {
  const want = idOrPrefix.trim();
  if (!want || /[/\\]/.test(want)) return { ok: false, error: `"${idOrPrefix}" is not a session id` };
  // current project first, then its git worktrees (the caller lists them), then every other project
  const first = [transcriptDir(cwd, env), ...(opts.worktrees ?? []).map((w) => transcriptDir(w, env))];
  // Every project under yoke's transcript root and Claude Code's, so a session the Agent SDK ran is found from a terminal too.
  const roots = sessionsRoots(env).map((r) => join(r, "projects"));
  const root = roots[0]!;
  const others: string[] = [];
  for (const r of roots) {
    try {
      others.push(...readdirSync(r).map((d) => join(r, d)).filter((d) => !first.includes(d)));
    } catch {
      // no projects yet
    }
  }
  for (const dir of [...new Set(first), ...others]) {
    const files = jsonlIn(dir);
    const exact = files.find((f) => basename(f, ".jsonl") === want);
    if (exact) return { ok: true, id: want, path: exact };
    const pre = files.filter((f) => basename(f).startsWith(want));
    if (pre.length === 1) return { ok: true, id: basename(pre[0]!, ".jsonl"), path: pre[0]! };
    if (pre.length > 1) {
      const ids = pre.map((f) => basename(f, ".jsonl")).slice(0, 5).join(", ");
      return { ok: false, error: `session id prefix "${want}" is ambiguous in ${dir}: ${ids}` };
    }
  }
  return { ok: false, error: `no session "${want}" under ${root}` };
}

/** Newest session of the project for --continue (optionally filtered, e.g. by entrypoint). Never throws. */
export function latestSession(cwd: string, env: Env = process.env, filter?: (row: SessionRow) => boolean): SessionRow | null {
  // Order by mtime from stat alone, and read files only until one passes the filter.
  const byTime = jsonlIn(transcriptDir(cwd, env))
    .map((path) => {
      try {
        return { path, t: statSync(path).mtimeMs };
      } catch {
        return { path, t: -1 };
      }
    })
    .sort((a, b) => b.t - a.t);
  for (const { path } of byTime) {
    const r = sessionRow(path);
    if (r && (!filter || filter(r))) return r;
  }
  return null;
}

const human = (n: number): string =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;

/** Table for `yoke sessions list`: id, modified, turns, size, first prompt. */
export function formatSessionList(rows: SessionRow[]): string {
  if (rows.length === 0) return "No sessions in this project yet.\n";
  const lines = rows.map((r) => {
    const when = r.mtime.toISOString().replace("T", " ").slice(0, 16);
    const label = (r.title ?? r.firstPrompt) || "(no prompt)";
    return `${r.id}  ${when}  ${String(r.turns).padStart(4)}  ${human(r.size).padStart(9)}  ${label.slice(0, 80)}`;
  });
  return `${"SESSION".padEnd(36)}  ${"MODIFIED".padEnd(16)}  TURNS       SIZE  FIRST PROMPT\n${lines.join("\n")}\n`;
}

const showBlock = (b: ContentBlock): string => {
  switch (b.type) {
    case "text":
      // Injected context (instruction files, memory, hook output) is summarised; the prompt itself is shown.
      return b.text.trimStart().startsWith("<system-reminder>") ? `(context: ${b.text.length.toLocaleString("en-US")} characters)` : b.text;
    case "thinking":
      return `(thinking) ${b.thinking.slice(0, 200)}`;
    case "tool_use":
      return `→ ${b.name} ${JSON.stringify(b.input).slice(0, 300)}`;
    case "tool_result": {
      const c = typeof b.content === "string" ? b.content : b.content.map((x) => (x.type === "text" ? x.text : "[image]")).join("\n");
      return `${b.is_error ? "✗" : "←"} ${c.length > 500 ? `${c.slice(0, 500)}…` : c}`;
    }
    case "image":
      return "[image]";
  }
};

/** Readable transcript for `yoke sessions show`: one paragraph per entry, file order. Never throws. */
export function formatSessionShow(entries: SessionEntry[]): string {
  const out: string[] = [];
  for (const e of entries) {
    const time = e.timestamp ? e.timestamp.slice(11, 19) : "";
    if (e.type === "system") {
      if (e.subtype === "compact_boundary") out.push(`── ${time} conversation compacted (${e.compactMetadata?.trigger ?? "?"}, ${e.compactMetadata?.preTokens ?? "?"} tokens before) ──`);
      else if (e.content) out.push(`[${time} system/${e.subtype}] ${e.content}`);
      continue;
    }
    const content = e.message.content;
    const blocks = typeof content === "string" ? [content] : content.map(showBlock);
    const who =
      e.type === "assistant" ? "assistant" : e.isCompactSummary ? "summary" : typeof content !== "string" && content.some((b) => b.type === "tool_result") ? "tool" : "user";
    out.push(`[${time} ${who}${e.isSidechain ? " (subagent)" : ""}] ${blocks.join("\n")}`);
  }
  return `${out.join("\n\n")}\n`;
}
