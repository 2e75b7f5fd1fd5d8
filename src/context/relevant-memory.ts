import { readFileSync, statSync } from "node:fs";
import { relative } from "node:path";
import type { SideQuery } from "../tool/types.ts";
import { findFiles } from "../util/find-files.ts";
import { splitFrontmatter } from "../util/frontmatter.ts";

export const RELEVANT_MAX_FILES = 5;
export const RELEVANT_MAX_BYTES_PER_FILE = 4096;
export const RELEVANT_MAX_LINES_PER_FILE = 200;
export const RELEVANT_MAX_SESSION_BYTES = 60 * 1024;
const SCAN_MAX_FILES = 200;
const FRONTMATTER_MAX_LINES = 30;
const MEMORY_TYPES = new Set(["user", "feedback", "project", "reference"]);

export type MemoryHeader = { path: string; rel: string; mtimeMs: number; description?: string; type?: string };

/** Topic files of a memory directory (every `*.md` but MEMORY.md), newest first, at most 200. Never throws. */
export function scanMemoryFiles(dir: string): MemoryHeader[] {
  const out: MemoryHeader[] = [];
  for (const p of findFiles(dir, "**/*.md", { ignore: ["**/MEMORY.md"] })) {
    try {
      const head = readFileSync(p, "utf8").split("\n").slice(0, FRONTMATTER_MAX_LINES).join("\n");
      const { data } = splitFrontmatter(head);
      const description = typeof data?.description === "string" ? data.description.trim() : undefined;
      const type = typeof data?.type === "string" && MEMORY_TYPES.has(data.type) ? data.type : undefined;
      out.push({ path: p, rel: relative(dir, p), mtimeMs: statSync(p).mtimeMs, description, type });
    } catch {}
  }
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs).slice(0, SCAN_MAX_FILES);
}

export function formatMemoryManifest(files: MemoryHeader[]): string {
  return files
    .map((f) => `- ${f.type ? `[${f.type}] ` : ""}${f.rel} (${new Date(f.mtimeMs).toISOString()})${f.description ? `: ${f.description}` : ""}`)
    .join("\n");
}

const SELECT_SYSTEM = `You choose which saved memory files would clearly help an AI coding assistant answer the user's next request. You get the request and a list of memory files with their descriptions. Pick at most ${RELEVANT_MAX_FILES}, only ones that are plainly useful for this request; picking none is fine. Answer with JSON only, in the form {"selected_memories": ["file.md", ...]}, using file names exactly as listed.`;

/** Every string in the first JSON object or array in a model answer; tolerant of prose and code fences around it. */
export function parseSelection(text: string): string[] {
  const tryParse = (s: string): unknown => {
    try {
      return JSON.parse(s);
    } catch {
      return undefined;
    }
  };
  const candidates = [text.trim(), /\{[\s\S]*\}/.exec(text)?.[0], /\[[\s\S]*\]/.exec(text)?.[0]];
  for (const c of candidates) {
    if (!c) continue;
    const v = tryParse(c);
    const list = Array.isArray(v) ? v : v && typeof v === "object" ? (v as Record<string, unknown>).selected_memories : undefined;
    if (Array.isArray(list)) return list.filter((x): x is string => typeof x === "string");
  }
  return [];
}

const ageText = (mtimeMs: number, now: number) => {
  const days = Math.max(0, Math.floor((now - mtimeMs) / 86_400_000));
  return days === 0 ? "today" : days === 1 ? "yesterday" : `${days} days ago`;
};

/** Reads a picked memory cut at 4 KB / 200 lines, with a note saying how to read the rest. */
function readCapped(path: string): string {
  const raw = readFileSync(path, "utf8");
  let text = raw;
  let why: string | null = null;
  const lines = text.split("\n");
  if (lines.length > RELEVANT_MAX_LINES_PER_FILE) {
    text = lines.slice(0, RELEVANT_MAX_LINES_PER_FILE).join("\n");
    why = `first ${RELEVANT_MAX_LINES_PER_FILE} lines`;
  }
  const buf = Buffer.from(text, "utf8");
  if (buf.length > RELEVANT_MAX_BYTES_PER_FILE) {
    text = buf.subarray(0, RELEVANT_MAX_BYTES_PER_FILE).toString("utf8").replace(/\uFFFD+$/, "");
    why = `${RELEVANT_MAX_BYTES_PER_FILE} byte limit`;
  }
  return why ? `${text}\n\n> This memory was cut (${why}). Read the whole file with the Read tool: ${path}` : text;
}

export type RelevantMemory = {
  path: string;
  /** The memory text (cut to the per-file limits). */
  content: string;
  /** A line saying what this is and how old it is; inject as `${header}\n\n${content}` in a system reminder. */
  header: string;
};

/**
 * Asks a side query which memories help with `prompt` and returns them (internals §4). Never throws
 * and never rejects: any failure, timeout, abort or unparsable answer gives []. Adds the returned
 * paths to `alreadySurfaced` and their size to `budget.bytesUsed` (60 KB a session at most).
 */
export async function selectRelevantMemories(opts: {
  dir: string;
  prompt: string;
  sideQuery: SideQuery;
  alreadySurfaced: Set<string>;
  budget: { bytesUsed: number };
  signal?: AbortSignal;
  timeoutMs?: number;
  recentTools?: string[];
  now?: number;
}): Promise<RelevantMemory[]> {
  if (opts.signal?.aborted || !/\s/.test(opts.prompt.trim()) || opts.budget.bytesUsed >= RELEVANT_MAX_SESSION_BYTES) return [];
  const controller = new AbortController();
  const abort = () => controller.abort();
  opts.signal?.addEventListener("abort", abort, { once: true });
  const timer = setTimeout(abort, opts.timeoutMs ?? 15_000);
  try {
    const files = scanMemoryFiles(opts.dir).filter((f) => !opts.alreadySurfaced.has(f.path));
    if (files.length === 0) return [];
    let query = `Query: ${opts.prompt}\n\nAvailable memories:\n${formatMemoryManifest(files)}`;
    if (opts.recentTools?.length) query += `\n\nRecently used tools: ${opts.recentTools.join(", ")}`;
    const aborted = new Promise<null>((res) => controller.signal.addEventListener("abort", () => res(null), { once: true }));
    const answer = await Promise.race([opts.sideQuery({ system: SELECT_SYSTEM, prompt: query, maxTokens: 256, signal: controller.signal }), aborted]);
    if (answer === null || controller.signal.aborted) return [];
    const byRel = new Map(files.map((f) => [f.rel, f]));
    const picked = [...new Set(parseSelection(answer))].map((n) => byRel.get(n)).filter((f): f is MemoryHeader => !!f);
    const now = opts.now ?? Date.now();
    const out: RelevantMemory[] = [];
    for (const f of picked.slice(0, RELEVANT_MAX_FILES)) {
      const content = readCapped(f.path);
      const bytes = Buffer.byteLength(content);
      if (opts.budget.bytesUsed + bytes > RELEVANT_MAX_SESSION_BYTES) break;
      opts.budget.bytesUsed += bytes;
      opts.alreadySurfaced.add(f.path);
      const age = ageText(f.mtimeMs, now);
      const header =
        age === "today" || age === "yesterday"
          ? `Memory (saved ${age}): ${f.path}:`
          : `This memory was saved ${age}. It records what was true then; check code, paths and line numbers before relying on it.\n\nMemory: ${f.path}:`;
      out.push({ path: f.path, content, header });
    }
    return out;
  } catch {
    return [];
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", abort);
  }
}
