import path from "node:path";
import picomatch from "picomatch";
import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import type { Tool } from "../types.ts";
import description from "./glob.md" with { type: "text" };
import { resolveSearchPath } from "./grep.ts";
import { byMtimeDesc, mtimesOf } from "./search/mtime.ts";
import { walk } from "./search/walk.ts";

/** Input of Glob (contracts §7.2). */
export const globInput = z.object({
  pattern: z.string().min(1).describe('Glob pattern to match file paths against, e.g. "**/*.ts" or "src/**/*.{js,jsx}"'),
  path: z.string().optional().describe("Directory to search in; absolute or relative to the working directory (default: working directory)"),
});

export type GlobInput = z.infer<typeof globInput>;

export type GlobToolOptions = {
  /** Most paths returned (default 100, contracts §7.2). */
  limit?: number;
  /** Honour .gitignore and friends (default true; see the report: Claude Code's default differs). */
  respectIgnore?: boolean;
};

export type GlobDetails = { filenames: string[]; numFiles: number; truncated: boolean; durationMs: number };

/** Glob (contracts §7.2). Never throws from run(); failures come back as is_error results. */
export function createGlobTool(opts: GlobToolOptions = {}): Tool<GlobInput> {
  const limit = opts.limit ?? 100;
  return defineTool({
    name: "Glob",
    description,
    input: globInput,
    readOnly: true,
    async execute(input, ctx) {
      const started = performance.now();
      const { abs: base, isFile } = await resolveSearchPath(input.path, ctx, "Glob");
      if (isFile) {
        throw new Error(`${base} is a file, not a directory. Call Glob again with a directory as path (or leave path out).`);
      }
      let root = base;
      let pattern = input.pattern.replaceAll("\\", "/");
      if (path.isAbsolute(pattern)) {
        const s = picomatch.scan(pattern);
        root = s.base || "/";
        pattern = s.glob || "**";
      }
      // Walk only below the pattern's literal prefix ("src/lib/**/*.ts" → src/lib).
      const scanned = picomatch.scan(pattern);
      const walkRoot = scanned.base ? path.join(root, scanned.base) : root;
      const isMatch = picomatch(pattern, { dot: true });
      const found: string[] = [];
      try {
        await walk({
          root: walkRoot,
          respectIgnore: opts.respectIgnore,
          signal: ctx.signal,
          includeSymlinks: true,
          onFile: (e) => {
            const rel = walkRoot === root ? e.rel : path.relative(root, e.abs).split(path.sep).join("/");
            // Names under a Read-denied path are not shown either (`secrets/*` would list what the folder holds).
            if (isMatch(rel) && !ctx.searchHides?.(e.abs)) found.push(e.abs);
          },
        });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        // The literal prefix does not exist: nothing can match.
      }
      const times = await mtimesOf(found);
      const files = [...times.keys()].sort(byMtimeDesc(times));
      const shown = files.slice(0, limit);
      const details: GlobDetails = {
        filenames: shown,
        numFiles: files.length,
        truncated: files.length > limit,
        durationMs: Math.round(performance.now() - started),
      };
      if (!files.length) return { content: "No files found", details };
      let text = shown.join("\n");
      if (files.length > limit) {
        text += `\n(Results are truncated: showing the ${limit} most recently modified of ${files.length} matching files, ${files.length - limit} left out. Use a more specific pattern or path.)`;
      }
      return { content: text, details };
    },
  });
}
