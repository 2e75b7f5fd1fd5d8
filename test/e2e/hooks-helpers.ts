// Shared fixtures for the hook and plugin end-to-end tests: a project with Claude Code settings and hook scripts.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic, type FakeEntry, type LoggedRequest } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke, type RunYokeResult, TRUST_WORKSPACE } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

/** A temp project whose `.claude/settings.json` is `settings`. */
export function project(settings: Record<string, unknown> = {}): string {
  const cwd = tempDir("yoke-hooks-");
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify(settings, null, 2));
  return cwd;
}

/** Writes an executable bash script under `dir` and returns its path. */
export function script(dir: string, rel: string, body: string): string {
  const p = join(dir, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(p, 0o755);
  return p;
}

/** `{ Event: [{ matcher, hooks: [{ type: "command", command, ...more }] }] }` for one command. */
export const hook = (event: string, command: string, matcher?: string, more: Record<string, unknown> = {}) => ({
  [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: "command", command, ...more }] }],
});

export type Run = RunYokeResult & { requests: LoggedRequest[]; fake: FakeAnthropic; json?: any; lines?: any[] };

/**
 * Runs `yoke -p PROMPT ...args` in `cwd` against a fresh fake API holding `script`; parses json /
 * stream-json stdout when that format was asked for. The fake is stopped before returning.
 */
export async function runWith(
  cwd: string,
  replies: FakeEntry[],
  args: string[],
  o: { env?: Record<string, string | undefined>; timeoutMs?: number; prompt?: string; stdin?: string } = {},
): Promise<Run> {
  const fake = await startFakeAnthropic({ script: replies });
  try {
    // The fixture project is the test's own: trusted, so its hooks and plugins apply.
    const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5", ...TRUST_WORKSPACE, ...o.env });
    const r = await runYoke(["-p", o.prompt ?? "go", ...args], { cwd, env, timeoutMs: o.timeoutMs, stdin: o.stdin });
    const out: Run = { ...r, requests: [...fake.requests], fake };
    const fmt = args[args.indexOf("--output-format") + 1];
    if (args.includes("--output-format") && fmt === "json") out.json = JSON.parse(r.stdout);
    if (args.includes("--output-format") && fmt === "stream-json") out.lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    return out;
  } finally {
    await fake.stop();
  }
}

/** All text of a request body's messages (user and assistant), tool results flattened. */
export function requestText(req: LoggedRequest): string {
  const parts: string[] = [];
  for (const m of req.body?.messages ?? []) {
    if (typeof m.content === "string") parts.push(m.content);
    else
      for (const b of m.content)
        parts.push(b.text ?? (typeof b.content === "string" ? b.content : Array.isArray(b.content) ? b.content.map((c: any) => c.text ?? "").join("\n") : ""));
  }
  return parts.join("\n");
}

/** The system prompt text of a request. */
export const systemText = (req: LoggedRequest): string =>
  typeof req.body?.system === "string" ? req.body.system : (req.body?.system ?? []).map((b: any) => b.text).join("\n");

export const bashCall = (command: string) => ({ content: [{ type: "tool_use" as const, name: "Bash", input: { command } }] });
export const say = (text: string) => ({ content: [{ type: "text" as const, text }] });

/** A temp project whose settings hold only these hooks. */
export const hooksProject = (hooks: Record<string, unknown>): string => project({ hooks });
