import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ToolContext } from "../../src/tool/types.ts";
import { tempDir as sharedTempDir } from "../helpers/tmp.ts";
import { makeCtx as baseCtx } from "./ctx.ts";

/** A ToolContext over `cwd` whose env holds only PATH plus `env`, so no outside YOKE_GREP_ENGINE leaks in. */
export function makeCtx(cwd: string, extra: Partial<ToolContext> = {}, env: Record<string, string> = {}): ToolContext {
  return baseCtx(cwd, { env: { PATH: process.env.PATH ?? "", ...env }, ...extra });
}

const made: string[] = [];

/** A fresh directory under the OS temp dir; removeTempDirs() deletes all made by this test file. */
export function tempDir(prefix = "yoke-search-"): string {
  const d = sharedTempDir(prefix);
  made.push(d);
  return d;
}

export function removeTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Writes files (path → content) under root; each later file gets a newer mtime, so order is deterministic. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  let t = 1_700_000_000;
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    utimesSync(abs, t, t);
    t += 10;
  }
}
