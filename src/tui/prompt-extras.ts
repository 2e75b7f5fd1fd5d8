import { spawnProcess } from "../util/subprocess.ts";
import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { PermissionEvaluator } from "../permission/types.ts";

/**
 * What a typed line may carry besides the prompt (issue 12 point 5): `!cmd` runs a shell command now, as the person
 * typing it (no permission prompt, as in Claude Code's bash mode), and its output joins the next prompt; `@path`
 * attaches that file to the prompt. Both reach the model as context blocks beside the prompt, in Claude Code's tags.
 * Read deny rules still hold for `@path`: a denied file is not attached, and the person is told why. Never throw.
 */
const MAX_OUTPUT = 30_000;
const MAX_FILE = 200_000;

/** Runs `cmd` with `sh -c` in cwd; resolves with the context block and what to show. Aborting kills it. */
export function runShellLine(cmd: string, cwd: string, env: Record<string, string>, signal: AbortSignal): Promise<{ block: string; shown: string }> {
  return new Promise((done) => {
    const child = spawnProcess(["sh", "-c", cmd], { cwd, env, stdin: "ignore" });
    let out = "";
    let err = "";
    const cap = (s: string, d: Buffer) => (s.length < MAX_OUTPUT ? s + d.toString() : s);
    child.stdout?.on("data", (d: Buffer) => (out = cap(out, d)));
    child.stderr?.on("data", (d: Buffer) => (err = cap(err, d)));
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    signal.addEventListener("abort", kill, { once: true });
    const finish = (code: number | null, failure?: string) => {
      signal.removeEventListener("abort", kill);
      out = out.slice(0, MAX_OUTPUT);
      err = (failure ?? err).slice(0, MAX_OUTPUT);
      const status = signal.aborted ? "interrupted" : code === 0 ? "" : `exit ${code}`;
      done({
        block: `<bash-input>${cmd}</bash-input>\n<bash-stdout>${out}</bash-stdout><bash-stderr>${err}${status ? `\n(${status})` : ""}</bash-stderr>`,
        shown: [out.trimEnd(), err.trimEnd(), status ? `(${status})` : ""].filter(Boolean).join("\n") || "(no output)",
      });
    };
    child.on("error", (e) => finish(null, e.message));
    child.on("close", (code) => finish(code));
  });
}

/** `@path` words of a prompt that name existing files (relative to cwd, or absolute; `@"a b"` for spaces). Pure but for fs checks. */
export function mentionedFiles(prompt: string, cwd: string): string[] {
  const out: string[] = [];
  for (const m of prompt.matchAll(/(?:^|\s)@(?:"([^"]+)"|([^\s"]+))/g)) {
    const raw = (m[1] ?? m[2]!).replace(/[.,;:!?)]+$/, "");
    // `@server:uri` is an MCP resource mention (handled by the MCP path), not a file.
    if (/^[\w-]+:/.test(raw)) continue;
    const abs = resolve(cwd, raw);
    try {
      if (existsSync(abs) && statSync(abs).isFile() && !out.includes(abs)) out.push(abs);
    } catch {
      // Unreadable: left as text.
    }
  }
  return out;
}

/** Context blocks for the files a prompt mentions, and notes for the ones left out (denied, too large, unreadable). */
export function attachFiles(files: string[], cwd: string, permissions: PermissionEvaluator): { blocks: string[]; notes: string[] } {
  const blocks: string[] = [];
  const notes: string[] = [];
  for (const file of files) {
    const d = permissions.decide({ toolName: "Read", input: { file_path: file }, readOnly: true, cwd });
    if (d.behavior === "deny") {
      notes.push(`@${file} not attached: ${d.reason}`);
      continue;
    }
    try {
      const size = statSync(file).size;
      if (size > MAX_FILE) {
        notes.push(`@${file} not attached: ${size} bytes is more than ${MAX_FILE}; the model can Read parts of it`);
        continue;
      }
      blocks.push(`Contents of ${file} (attached by the user with @):\n<file path="${file}">\n${readFileSync(file, "utf8")}\n</file>`);
      notes.push(`attached ${file}`);
    } catch (e) {
      notes.push(`@${file} not attached: ${(e as Error).message}`);
    }
  }
  return { blocks, notes };
}
