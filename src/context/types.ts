/** Which of Claude Code's memory types a file belongs to (internals §1.1); `memory` is the auto-memory MEMORY.md. */
export type InstructionLayer = "managed" | "user" | "project" | "local" | "memory";

export type InstructionStatus = "included" | "truncated" | "deduplicated" | "deferred" | "skipped";

export type InstructionLoader = "claude-code" | "claw-code";

/** One instruction file as discovered; `content` is what the model sees (stripped, maybe truncated). */
export type InstructionFile = {
  layer: InstructionLayer;
  /** Absolute path. */
  path: string;
  /** Bytes on disk. */
  size: number;
  /** Estimate of the rendered content: characters / 4, rounded up; 0 unless included or truncated. */
  tokens: number;
  status: InstructionStatus;
  /** Why a file is truncated, deduplicated, deferred or skipped (names the rule, limit or other file). */
  reason?: string;
  content: string;
  loader: InstructionLoader;
  /** The file whose `@import` brought this one in. */
  parent?: string;
  /** `paths:` globs of a conditional rule. */
  globs?: string[];
  /**
   * Why the file entered the context, as the InstructionsLoaded hook names it (internals §1.1):
   * "session_start", "include" (an @import), "nested_traversal" (CLAUDE.md below cwd) or "path_glob_match".
   * Set on shown files only.
   */
  loadReason?: "session_start" | "include" | "nested_traversal" | "path_glob_match";
  /** claw-code only: the `scope:` directory of its heading (internals §1.2). */
  scope?: string;
};

/**
 * The instruction files of one session. `files` is in prompt order.
 * `onFileRead` never throws: it returns the lazily attached files (nested CLAUDE.md below cwd,
 * conditional rules whose `paths:` match) for a file the model just read, each file at most once.
 */
export type InstructionSet = {
  loader: InstructionLoader;
  files: InstructionFile[];
  onFileRead(absPath: string): InstructionFile[];
};

export type GitInfo = {
  root: string;
  /** null on a detached HEAD. */
  branch: string | null;
  /** The branch PRs usually target (origin's HEAD, else main or master); null when unknown. */
  mainBranch: string | null;
  /** `git status --short --branch`, cut at 2,000 characters. */
  status: string;
  /** `git log --oneline -n 5`. */
  recentCommits: string;
};

/** The auto-memory section of the system prompt is written for this directory. */
export type MemorySection = { dir: string };

export type PromptSection = { name: string; text: string };

export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);
