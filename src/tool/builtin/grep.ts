import { statSync } from "node:fs";
import { fsp } from "../../util/fs-promises.ts";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import { INPUT_SCHEMAS } from "../input-schemas.ts";
import type { Tool, ToolContext } from "../types.ts";
import description from "./grep.md" with { type: "text" };
import { looksBinary } from "./read-text.ts";
import { builtinEngine } from "./search/builtin-engine.ts";
import { splitGlobs } from "./search/file-filter.ts";
import { createCollector, keepFor } from "./search/collect.ts";
import { formatHits } from "./search/format.ts";
import { createRgEngine } from "./search/rg-engine.ts";
import type { GrepEngine, GrepMode } from "./search/types.ts";

/** Input of Grep (contracts §7.2): ripgrep's options under the names Claude Code exposes. */
export const grepInput = () => z.object({
  pattern: z.string().min(1).describe("Regular expression (ripgrep syntax) to search for"),
  path: z.string().optional().describe("File or directory to search; absolute or relative to the working directory (default: working directory)"),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts" or "*.{ts,tsx}"; several separated by spaces or commas; "!" excludes'),
  output_mode: z
    .enum(["content", "files_with_matches", "count"])
    .optional()
    .describe('"files_with_matches" (default): file paths; "content": matching lines; "count": matching lines per file'),
  "-B": z.number().int().min(0).optional().describe("Lines of context before each match (content mode)"),
  "-A": z.number().int().min(0).optional().describe("Lines of context after each match (content mode)"),
  "-C": z.number().int().min(0).optional().describe("Lines of context before and after each match (content mode)"),
  context: z.number().int().min(0).optional().describe("Same as -C"),
  "-n": z.boolean().optional().describe("Show line numbers (content mode; default true)"),
  "-i": z.boolean().optional().describe("Case-insensitive search"),
  "-o": z.boolean().optional().describe("Show only the matched text, one match per line (content mode)"),
  type: z.string().optional().describe("ripgrep file type, e.g. js, ts, py, rust, go, java, md"),
  head_limit: z.number().int().min(0).optional().describe("Return at most this many entries (default 250; 0 = no limit)"),
  offset: z.number().int().min(0).optional().describe("Skip this many entries first, to page through results (default 0)"),
  multiline: z.boolean().optional().describe("Let the pattern span lines; . matches newlines (default false)"),
});

export type GrepInput = z.infer<ReturnType<typeof grepInput>>;
export type GrepEngineChoice = "auto" | "rg" | "builtin";

export type GrepToolOptions = {
  /** Which engine to use; default: ctx.env.YOKE_GREP_ENGINE, else "auto" (rg from ctx.env.PATH when found). */
  engine?: GrepEngineChoice;
  /** Explicit rg binary, skipping the PATH lookup. */
  rgPath?: string;
};

const DEFAULT_HEAD_LIMIT = 250;

/** Which engine serves a call. Throws a model-facing Error when rg is required but missing. */
export function pickEngine(opts: GrepToolOptions, env: Record<string, string>): { name: "rg" | "builtin"; engine: GrepEngine } {
  const raw = opts.engine ?? (env.YOKE_GREP_ENGINE as GrepEngineChoice | undefined) ?? "auto";
  const choice: GrepEngineChoice = raw === "rg" || raw === "builtin" ? raw : "auto";
  if (choice === "builtin") return { name: "builtin", engine: builtinEngine };
  // Found on the PATH yoke started with: a settings env.PATH must not swap in a repo's own `rg` for a read-only tool.
  const rg = opts.rgPath ?? Bun.which("rg", { PATH: process.env.PATH ?? "" });
  if (rg) return { name: "rg", engine: createRgEngine(rg, env) };
  if (choice === "rg") throw new Error("YOKE_GREP_ENGINE=rg is set but no `rg` executable is on PATH.");
  return { name: "builtin", engine: builtinEngine };
}

/** Resolves the model's path against the session cwd. Throws a model-facing Error when it does not exist. */
export async function resolveSearchPath(p: string | undefined, ctx: ToolContext, tool: string) {
  const cwd = ctx.session?.cwd ?? ctx.cwd;
  const abs = p ? path.resolve(cwd, p) : cwd;
  let s;
  try {
    s = await fsp().stat(abs);
  } catch {
    throw new Error(
      `Path does not exist: ${abs}. The current working directory is ${cwd}. Call ${tool} again with an existing file or directory as path, or leave path out to search the working directory.`,
    );
  }
  // A FIFO would block the search forever and a device (/dev/zero) never ends (issue 20.5).
  if (!s.isDirectory() && !s.isFile())
    throw new Error(`${abs} is not a regular file or a directory (a FIFO, socket or device), so ${tool} does not search it. Give a file or directory as path.`);
  return { abs, isFile: !s.isDirectory() };
}

/** Only regular files are sniffed (opening a FIFO would block); an unreadable one counts as text and the engine reports it. */
function isBinary(abs: string): boolean {
  try {
    return statSync(abs).isFile() && looksBinary(abs, 65_536);
  } catch {
    return false;
  }
}

/** Grep (contracts §7.2). Never throws from run(); failures come back as is_error results. */
export function createGrepTool(opts: GrepToolOptions = {}): Tool<GrepInput> {
  return defineTool({
    name: "Grep",
    description,
    input: grepInput,
    jsonSchema: INPUT_SCHEMAS.Grep,
    readOnly: true,
    async execute(input, ctx) {
      const { abs, isFile } = await resolveSearchPath(input.path, ctx, "Grep");
      // ripgrep searches a binary file named outright (and prints a notice); the built-in engine skips it.
      // Deciding here keeps both engines' answers the same.
      if (isFile && isBinary(abs)) {
        return {
          content: `${abs} is a binary file; Grep does not search binary files.`,
          details: { mode: input.output_mode ?? "files_with_matches", numFiles: 0, filenames: [] },
        };
      }
      const mode: GrepMode = input.output_mode ?? "files_with_matches";
      const around = input["-C"] ?? input.context ?? 0;
      const content = mode === "content";
      const { name, engine } = pickEngine(opts, ctx.env);
      const headLimit = input.head_limit ?? DEFAULT_HEAD_LIMIT;
      const offset = input.offset ?? 0;
      const keep = keepFor(offset, headLimit);
      const q = {
        pattern: input.pattern,
        root: abs,
        rootIsFile: isFile,
        // Files a Read deny rule covers are never searched, so a whole-tree Grep cannot read them (issue 5).
        globs: [...splitGlobs(input.glob), ...(isFile ? [] : (ctx.searchExcludes?.(abs) ?? []))],
        type: input.type,
        mode,
        before: content ? (input["-B"] ?? around) : 0,
        after: content ? (input["-A"] ?? around) : 0,
        ignoreCase: input["-i"] ?? false,
        multiline: input.multiline ?? false,
        onlyMatching: content && (input["-o"] ?? false),
        maxLines: keep,
        signal: ctx.signal,
      };
      const withContext = q.before > 0 || q.after > 0;
      // Only the files that can reach the page are held; the rest are counted (issue 20.5). Denied files were left
      // out of the search; a file reached another way (a link, a named root) is dropped here.
      const hide = ctx.searchHides;
      const collector = createCollector({ mode, withContext, keep, hide: hide && ((p) => hide(path.resolve(abs, p))) });
      await engine(q, collector.add);
      const { text, details } = formatHits(collector.done(), {
        mode,
        lineNumbers: input["-n"] ?? true,
        withContext,
        headLimit,
        offset,
      });
      return { content: text, details: { ...details, engine: name } };
    },
  });
}
