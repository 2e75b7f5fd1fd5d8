import { createFileState } from "../../src/tool/file-state.ts";
import type { ToolContext } from "../../src/tool/types.ts";
import { tempDir as sharedTempDir } from "../helpers/tmp.ts";

/** A fresh temp dir (realpath'd, so paths compare equal to what tools report). */
export const tempDir = (prefix = "yoke-tool-"): string => sharedTempDir(prefix);

/** A ToolContext over `cwd` with a fresh FileState and AbortController; `changed` collects beforeFileChange calls. */
export function makeCtx(cwd: string, over: Partial<ToolContext> = {}): ToolContext & { changed: string[]; abort: AbortController } {
  const abort = new AbortController();
  const changed: string[] = [];
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return {
    cwd,
    projectDir: cwd,
    workingDirectories: [cwd],
    sessionId: "test-session",
    signal: abort.signal,
    env,
    fileState: createFileState(),
    session: { cwd, todos: [], envFiles: [] },
    toolUseId: "toolu_test",
    beforeFileChange: (p) => void changed.push(p),
    ...over,
    changed,
    abort,
  };
}
