/**
 * `bun run bench/bytecode-order.ts [--bin PATH]`: records the bytecode layout profile build.ts hands to the compiler
 * (compile.bytecodeOrder): the compiled yoke (dist/yoke unless --bin) runs the bench's configured one-turn task against
 * the fake API with BUN_BYTECODE_ORDER_OUT, and the functions it used go to release/bytecode-order.txt. Re-run it
 * after large changes to what a start runs, then `bun run build`; a stale profile still applies to unchanged functions.
 */
import { existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, repoRoot, yokeBin } from "../test/helpers/binary.ts";
import { fakeApiEnv, startFakeAnthropic } from "../test/helpers/fake-anthropic.ts";
import { measure } from "./measure.ts";
import { configuredArgs, configuredProblem, writeConfiguredProject } from "./project.ts";
import { freshCwd, installResponder, newRunLog, runProblem, scenarioArgs, type RunLog } from "./scenarios.ts";

const i = process.argv.indexOf("--bin");
const bin = i > 0 ? process.argv[i + 1]! : yokeBin();
if (!existsSync(bin)) throw new Error(`bytecode-order: no binary at ${bin} (run \`bun run build\` first)`);
const out = join(repoRoot(), "release", "bytecode-order.txt");
const fake = await startFakeAnthropic();
const cwd = freshCwd();
const tmp = freshCwd();
writeConfiguredProject(cwd);
const log: RunLog = newRunLog("oneTurn", cwd);
installResponder(fake, () => log, () => "Bash")();
const recording = `${out}.${process.pid}.tmp`;
const env: Record<string, string> = { ...isolatedEnv({ ...fakeApiEnv(fake), YOKE_TRUST_WORKSPACE: "1" }), TMPDIR: tmp, BUN_BYTECODE_ORDER_OUT: recording };
const s = await measure([bin, ...scenarioArgs("oneTurn"), ...configuredArgs()], { cwd, env, rss: "none", timeoutMs: 120_000 });
await fake.stop();
for (const d of [cwd, tmp, env.HOME!]) rmSync(d, { recursive: true, force: true });
const problem = runProblem("oneTurn", s, log) ?? configuredProblem(log.firstBody, { mcp: true });
if (problem || !existsSync(recording)) {
  rmSync(recording, { force: true });
  throw new Error(`bytecode-order: the recording run failed: ${problem ?? "it wrote no profile"}\n${s.stderr.slice(0, 400)}`);
}
renameSync(recording, out);
console.log(`wrote ${out} (${readFileSync(out, "utf8").split("\n").length - 1} functions)`);
process.exit(0);
