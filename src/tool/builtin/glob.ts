import path from "node:path";
import picomatch from "picomatch";
import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import { INPUT_SCHEMAS } from "../input-schemas.ts";
import type { Tool } from "../types.ts";
import description from "./glob.md" with { type: "text" };
import { resolveSearchPath } from "./grep.ts";
import { createCollector } from "./search/collect.ts";
import { mtimesOf } from "./search/mtime.ts";
import { walk } from "./search/walk.ts";

/** Input of Glob (contracts §7.2). */
export const globInput = () => z.object({
  pattern: z.string().min(1).describe('Glob pattern to match file paths against, e.g. "**/*.ts" or "src/**/*.{js,jsx}"'),
  path: z.string().optional().describe("Directory to search in; absolute or relative to the working directory (default: working directory)"),
});

export type GlobInput = z.infer<ReturnType<typeof globInput>>;

export type GlobToolOptions = {
  /** Most paths returned (default 100, contracts §7.2). */
  limit?: number;
  /** Honour .gitignore and friends (default true; see the report: Claude Code's default differs). */
  respectIgnore?: boolean;
};

/** Paths statted together while Glob walks. */
const STAT_BATCH = 1024;

export type GlobDetails = { filenames: string[]; numFiles: number; truncated: boolean; durationMs: number };

/** Glob (contracts §7.2). Never throws from run(); failures come back as is_error results. */
export function createGlobTool(opts: GlobToolOptions = {}): Tool<GlobInput> {
  const limit = opts.limit ?? 100;
  return defineTool({
    name: "Glob",
    description,
    input: globInput,
    jsonSchema: INPUT_SCHEMAS.Glob,
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
      // Only the newest `limit` paths are held; the rest are counted (issue 20.5): paths wait in a batch,
      // are statted together, and the walk waits while a full batch is being statted.
      const newest = createCollector({ mode: "files_with_matches", withContext: false, keep: limit });
      let batch: string[] = [];
      let chain = Promise.resolve();
      const flush = () => {
        const paths = batch;
        batch = [];
        chain = chain.then(async () => {
          for (const [p, t] of await mtimesOf(paths)) newest.add({ path: p, count: 1, lines: [], mtimeMs: t });
        });
        return chain;
      };
      try {
        await walk({
          root: walkRoot,
          respectIgnore: opts.respectIgnore,
          signal: ctx.signal,
          includeSymlinks: true,
          onFile: (e) => {
            const rel = walkRoot === root ? e.rel : path.relative(root, e.abs).split(path.sep).join("/");
            // Names under a Read-denied path are not shown either (`secrets/*` would list what the folder holds).
            if (!isMatch(rel) || ctx.searchHides?.(e.abs)) return;
            batch.push(e.abs);
            if (batch.length >= STAT_BATCH) return flush();
          },
        });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        // The literal prefix does not exist: nothing can match.
      }
      await flush();
      const { hits, files: total } = newest.done();
      const shown = hits.slice(0, limit).map((h) => h.path);
      const details: GlobDetails = {
        filenames: shown,
        numFiles: total,
        truncated: total > limit,
        durationMs: Math.round(performance.now() - started),
      };
      if (!total) return { content: "No files found", details };
      let text = shown.join("\n");
      if (total > limit) {
        text += `\n(Results are truncated: showing the ${limit} most recently modified of ${total} matching files, ${total - limit} left out. Use a more specific pattern or path.)`;
      }
      return { content: text, details };
    },
  });
}
