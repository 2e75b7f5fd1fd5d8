import { existsSync, readFileSync, statSync } from "node:fs";
import { userHome } from "../util/home.ts";
import { dirname, isAbsolute, join, normalize, resolve, sep } from "node:path";
import type { LoadedSettings, SettingsLevel } from "../config/load.ts";
import { sanitizePath, yokeDir } from "../config/paths.ts";
import { estimateTokens, type InstructionFile } from "./types.ts";
import { formatFileSize } from "../util/format-size.ts";
import { isTruthy } from "../util/env.ts";

export type AutoMemory = { enabled: boolean; dir: string | null; reason?: string };

/**
 * Why an override path is refused, or null when it is usable (internals §2.1). Settings values may
 * start with `~/`; they may not name the home directory itself or its parent.
 */
export function memoryPathProblem(raw: string, fromSettings: boolean): string | null {
  if (raw.includes("\0")) return "it contains a NUL byte";
  if (/^(\\\\|\/\/)/.test(raw)) return "UNC network paths are not allowed";
  if (fromSettings) {
    if (raw === "~") return "a bare ~ would put memory files straight into your home directory";
    if (raw.startsWith("~/")) {
      const rest = normalize(raw.slice(2) || ".");
      if (rest === "." || rest === ".." || rest === "./" || rest === "../" || rest.startsWith("../"))
        return "it resolves to your home directory or above it";
      return null;
    }
  }
  if (/^[A-Za-z]:[\\/]?$/.test(raw)) return "a bare drive root is not allowed";
  if (!isAbsolute(raw)) return "it is relative; use an absolute path (or ~/… in settings)";
  if (raw.replace(/[\\/]+$/, "").length < 3) return "it is a filesystem root or too short to be a dedicated directory";
  return null;
}

/** The canonical git root (a linked worktree maps to its main repository), or null outside a repo. */
export function findCanonicalGitRoot(cwd: string): string | null {
  for (let d = resolve(cwd); ; d = dirname(d)) {
    const dotGit = join(d, ".git");
    let st;
    try {
      st = statSync(dotGit);
    } catch {
      st = null;
    }
    if (st?.isDirectory()) return d;
    if (st?.isFile()) {
      try {
        const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
        const gitdir = m ? resolve(d, m[1]!.trim()) : null;
        const common = gitdir && existsSync(join(gitdir, "commondir")) ? resolve(gitdir, readFileSync(join(gitdir, "commondir"), "utf8").trim()) : null;
        return common ? dirname(common) : d;
      } catch {
        return d;
      }
    }
    if (dirname(d) === d) return null;
  }
}

const withSlash = (p: string) => p.replace(/[\\/]+$/, "").normalize("NFC") + sep;

/**
 * Whether auto memory is on and where it lives (internals §2.1). Never throws: refused overrides fall
 * back to the next source and the explanation lands in `reason`.
 * `autoMemoryDirectory` is read from managed, flag, local and user settings only; project settings are
 * ignored because a cloned repository must not redirect where we write.
 */
export function resolveAutoMemory(opts: {
  cwd: string;
  env?: Record<string, string | undefined>;
  settings: LoadedSettings;
  bare?: boolean;
  flagDir?: string;
}): AutoMemory {
  const env = opts.env ?? process.env;
  const flag = env.CLAUDE_CODE_DISABLE_AUTO_MEMORY;
  if (flag !== undefined && isTruthy(flag)) return { enabled: false, dir: null, reason: "CLAUDE_CODE_DISABLE_AUTO_MEMORY is set" };
  if (flag === undefined) {
    if (opts.bare || isTruthy(env.CLAUDE_CODE_SIMPLE)) return { enabled: false, dir: null, reason: "bare mode" };
    if (opts.settings.merged.autoMemoryEnabled === false) {
      const src = [...opts.settings.sources].reverse().find((s) => s.settings.autoMemoryEnabled === false);
      return { enabled: false, dir: null, reason: `autoMemoryEnabled is false in ${src?.path ?? "settings"}` };
    }
  }
  const home = userHome(env);
  const notes: string[] = [];
  const cowork = env.CLAUDE_COWORK_MEMORY_PATH_OVERRIDE;
  if (cowork) {
    const problem = memoryPathProblem(cowork, false);
    if (!problem) return { enabled: true, dir: withSlash(cowork) };
    notes.push(`CLAUDE_COWORK_MEMORY_PATH_OVERRIDE ignored: ${problem}`);
  }
  const candidates: Array<{ value: string; label: string }> = [];
  const byLevel = (level: SettingsLevel) =>
    [...opts.settings.sources]
      .reverse()
      .filter((s) => s.level === level && typeof s.settings.autoMemoryDirectory === "string")
      .map((s) => ({ value: s.settings.autoMemoryDirectory as string, label: `autoMemoryDirectory in ${s.path}` }));
  candidates.push(...byLevel("managed"));
  if (opts.flagDir !== undefined) candidates.push({ value: opts.flagDir, label: "the memory directory flag" });
  candidates.push(...byLevel("flag"), ...byLevel("local"), ...byLevel("user"));
  for (const c of candidates) {
    const problem = memoryPathProblem(c.value, true);
    if (problem) {
      notes.push(`${c.label} ignored ("${c.value}"): ${problem}`);
      continue;
    }
    const dir = c.value.startsWith("~/") ? join(home, c.value.slice(2)) : c.value;
    return { enabled: true, dir: withSlash(dir), ...(notes.length ? { reason: notes.join("; ") } : {}) };
  }
  const project = findCanonicalGitRoot(opts.cwd) ?? resolve(opts.cwd);
  const dir = withSlash(join(yokeDir(env as NodeJS.ProcessEnv), "projects", sanitizePath(project), "memory"));
  return { enabled: true, dir, ...(notes.length ? { reason: notes.join("; ") } : {}) };
}

export const MEMORY_INDEX_MAX_LINES = 200;
export const MEMORY_INDEX_MAX_CHARS = 25_000;

/** MEMORY.md cut at 200 lines, then at 25,000 characters on a line boundary, with a warning naming the limit (internals §2.2). */
export function truncateMemoryIndex(raw: string): { text: string; warning?: string } {
  const trimmed = raw.trim();
  const lines = trimmed.split("\n");
  const tooManyLines = lines.length > MEMORY_INDEX_MAX_LINES;
  const tooLong = trimmed.length > MEMORY_INDEX_MAX_CHARS;
  if (!tooManyLines && !tooLong) return { text: trimmed };
  let text = tooManyLines ? lines.slice(0, MEMORY_INDEX_MAX_LINES).join("\n") : trimmed;
  if (text.length > MEMORY_INDEX_MAX_CHARS) {
    const cut = text.lastIndexOf("\n", MEMORY_INDEX_MAX_CHARS);
    text = text.slice(0, cut > 0 ? cut : MEMORY_INDEX_MAX_CHARS);
  }
  const size = formatFileSize(trimmed.length);
  const why =
    tooManyLines && tooLong
      ? `${lines.length} lines and ${size}`
      : tooManyLines
        ? `${lines.length} lines (limit: ${MEMORY_INDEX_MAX_LINES})`
        : `${size} (limit: ${formatFileSize(MEMORY_INDEX_MAX_CHARS)}), because its entries are too long`;
  const warning = `> WARNING: MEMORY.md is ${why}, so only part of it was loaded. Keep each index entry to one short line and put details in topic files.`;
  return { text: `${text}\n\n${warning}`, warning };
}

/** The MEMORY.md index of a memory directory, truncated; null when missing or empty. Never throws. */
export function loadMemoryIndex(dir: string): { text: string; warning?: string } | null {
  let raw: string;
  try {
    raw = readFileSync(join(dir, "MEMORY.md"), "utf8");
  } catch {
    return null;
  }
  if (!raw.trim()) return null;
  return truncateMemoryIndex(raw);
}

/** MEMORY.md as an instruction file (layer "memory"), to render after the other files; null when there is none. */
export function memoryIndexFile(dir: string): InstructionFile | null {
  const idx = loadMemoryIndex(dir);
  if (!idx) return null;
  const path = join(dir, "MEMORY.md");
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {}
  return {
    layer: "memory",
    path,
    size,
    tokens: estimateTokens(idx.text),
    status: idx.warning ? "truncated" : "included",
    ...(idx.warning ? { reason: idx.warning.replace(/^> WARNING: /, "") } : {}),
    content: idx.text,
    loader: "claude-code",
  };
}
