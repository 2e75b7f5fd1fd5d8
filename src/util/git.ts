import { runProcess } from "./subprocess.ts";

type Env = Record<string, string | undefined>;

export type GitResult = { code: number; stdout: string; stderr: string };

/**
 * yoke's own git, found on the PATH yoke started with: a settings `env.PATH` reaches the model's commands,
 * never the programs yoke runs for itself (git context, checkpoints), which no permission check guards.
 */
const gitBin = (): string => Bun.which("git", { PATH: process.env.PATH ?? "" }) ?? "git";

/** How long one git call may take (YOKE_GIT_TIMEOUT_MS): a hung credential prompt or network remote must not stall the run. */
export const GIT_TIMEOUT_MS = 60_000;

/** Runs git, bounded in time and output; never throws (a spawn failure or timeout comes back as code -1 with the reason in stderr). */
export async function git(args: string[], opts: { cwd: string; env: Env; input?: string }): Promise<GitResult> {
  const ms = Number(opts.env.YOKE_GIT_TIMEOUT_MS);
  const timeoutMs = Number.isFinite(ms) && ms > 0 ? ms : GIT_TIMEOUT_MS;
  const r = await runProcess([gitBin(), ...args], { cwd: opts.cwd, env: opts.env, stdin: opts.input === undefined ? "ignore" : { data: opts.input }, timeoutMs });
  if (r.error) return { code: -1, stdout: "", stderr: r.error };
  if (r.timedOut) return { code: -1, stdout: r.stdout, stderr: `git ${args[0] ?? ""} did not finish within ${timeoutMs} ms and was stopped (YOKE_GIT_TIMEOUT_MS)` };
  return { code: r.code ?? -1, stdout: r.stdout, stderr: r.stderr };
}
