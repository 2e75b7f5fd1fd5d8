/**
 * `bun run bench/bytecode-order.ts [--bin PATH] [--scenario oneTurn|threeTurns]`: records the bytecode layout profiles
 * build.ts hands to the compiler (compile.bytecodeOrder): the compiled yoke (dist/yoke unless --bin) runs the bench's
 * configured task against the fake API with BUN_BYTECODE_ORDER_OUT, and the functions it used go to
 * release/bytecode-order.txt (the one-turn run, listed first: Bun places what the first file names at the front) and
 * release/bytecode-order-three-turns.txt (the three-turn run: the Write and Bash tool turns' functions, placed after the
 * start's). Both by default. Re-run it after large changes to what a run does, then `bun run build`; a stale profile
 * still applies to unchanged functions.
 */
import { existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, repoRoot, yokeBin } from "../test/helpers/binary.ts";
import { fakeApiEnv, startFakeAnthropic } from "../test/helpers/fake-anthropic.ts";
import { measure } from "./measure.ts";
import { configuredArgs, configuredProblem, writeConfiguredProject } from "./project.ts";
import { freshCwd, installResponder, newRunLog, runProblem, scenarioArgs, type RunLog } from "./scenarios.ts";

const PROFILES = { oneTurn: "bytecode-order.txt", threeTurns: "bytecode-order-three-turns.txt" } as const;
type Recorded = keyof typeof PROFILES;

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const bin = arg("--bin") ?? yokeBin();
if (!existsSync(bin)) throw new Error(`bytecode-order: no binary at ${bin} (run \`bun run build\` first)`);
const only = arg("--scenario");
if (only !== undefined && !(only in PROFILES)) throw new Error(`bytecode-order: --scenario must be oneTurn or threeTurns (got '${only}')`);
const scenarios = (only ? [only] : Object.keys(PROFILES)) as Recorded[];

const fake = await startFakeAnthropic();
let log: RunLog | null = null;
installResponder(fake, () => log, () => "Bash")();
try {
  for (const id of scenarios) {
    const out = join(repoRoot(), "release", PROFILES[id]);
    const cwd = freshCwd();
    const tmp = freshCwd();
    writeConfiguredProject(cwd);
    log = newRunLog(id, cwd);
    const recording = `${out}.${process.pid}.tmp`;
    const env: Record<string, string> = { ...isolatedEnv({ ...fakeApiEnv(fake), YOKE_TRUST_WORKSPACE: "1" }), TMPDIR: tmp, BUN_BYTECODE_ORDER_OUT: recording };
    const s = await measure([bin, ...scenarioArgs(id), ...configuredArgs()], { cwd, env, rss: "none", timeoutMs: 120_000 });
    // Checked before the folders go: the three-turn check looks for the file the run wrote.
    const problem = runProblem(id, s, log) ?? configuredProblem(log.firstBody, { mcp: true });
    for (const d of [cwd, tmp, env.HOME!]) rmSync(d, { recursive: true, force: true });
    if (problem || !existsSync(recording)) {
      rmSync(recording, { force: true });
      throw new Error(`bytecode-order: the ${id} recording run failed: ${problem ?? "it wrote no profile"}\n${s.stderr.slice(0, 400)}`);
    }
    renameSync(recording, out);
    console.log(`wrote ${out} (${readFileSync(out, "utf8").split("\n").length - 1} functions)`);
  }
} finally {
  await fake.stop();
}
process.exit(0);
