import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createFileState } from "../../src/tool/file-state.ts";
import type { SessionToolState, ToolContext } from "../../src/tool/types.ts";
import { tempDir } from "../helpers/tmp.ts";

export type ShellCtxOptions = {
  env?: Record<string, string>;
  signal?: AbortSignal;
  session?: SessionToolState;
  workingDirectories?: string[];
};

/** A real temp project dir and a ToolContext rooted in it; HOME and config dirs point into temp too. */
export function makeShellCtx(o: ShellCtxOptions = {}): { ctx: ToolContext; dir: string; root: string } {
  const root = tempDir("yoke-shell-");
  const dir = join(root, "project");
  mkdirSync(dir);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: root,
    YOKE_CONFIG_DIR: join(root, ".yoke"),
    CLAUDE_CONFIG_DIR: join(root, ".claude"),
    TMPDIR: root,
    LANG: "C.UTF-8",
    ...o.env,
  };
  const session: SessionToolState = o.session ?? { cwd: dir, todos: [], envFiles: [] };
  const ctx: ToolContext = {
    cwd: dir,
    projectDir: dir,
    workingDirectories: o.workingDirectories ?? [dir],
    sessionId: `test-${Math.random().toString(36).slice(2)}`,
    signal: o.signal ?? new AbortController().signal,
    env,
    fileState: createFileState(),
    session,
    toolUseId: "toolu_test",
  };
  return { ctx, dir, root };
}
