type Env = Record<string, string | undefined>;

export type GitResult = { code: number; stdout: string; stderr: string };

/**
 * yoke's own git, found on the PATH yoke started with: a settings `env.PATH` reaches the model's commands,
 * never the programs yoke runs for itself (git context, checkpoints), which no permission check guards.
 */
const gitBin = (): string => Bun.which("git", { PATH: process.env.PATH ?? "" }) ?? "git";

/** Runs git; never throws (a spawn failure comes back as code -1 with the reason in stderr). */
export async function git(args: string[], opts: { cwd: string; env: Env; input?: string }): Promise<GitResult> {
  try {
    const p = Bun.spawn([gitBin(), ...args], {
      cwd: opts.cwd,
      env: opts.env,
      stdin: opts.input === undefined ? "ignore" : new TextEncoder().encode(opts.input),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { code, stdout, stderr };
  } catch (err) {
    return { code: -1, stdout: "", stderr: err instanceof Error ? err.message : String(err) };
  }
}
