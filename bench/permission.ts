// Cost of deciding a Bash call statically (parse with mvdan-sh, options, expansion, paths): every Bash input of
// the attack corpus (attempts and ordinary commands) decided in its project, strict profile, default mode.
// `bun run bench:permission [REPO] [CORPUS_REPO]`: REPO's evaluator (default this checkout) over CORPUS_REPO's corpus
// (default REPO's), so two checkouts can be compared on the same inputs.
import { join, resolve } from "node:path";

const repo = resolve(process.argv[2] ?? join(import.meta.dir, ".."));
const { createPermissionEvaluator } = await import(join(repo, "src/permission/index.ts"));
const corpus = resolve(process.argv[3] ?? repo);
const { ATTEMPTS, ORDINARY, PROFILES } = await import(join(corpus, "test/fixtures/attack-corpus/corpus.ts"));
const { attackProject, fillInput } = await import(join(corpus, "test/helpers/attack-project.ts"));

type Entry = { tool: string; input: Record<string, unknown> };
const p = attackProject("strict");
const settings = { merged: PROFILES.strict, sources: [{ level: "user", path: p.settingsFile, ruleRoot: join(p.home, ".claude"), settings: PROFILES.strict }] };
const ev = createPermissionEvaluator({ settings, cwd: p.cwd, mode: "default", env: { HOME: p.home, PATH: process.env.PATH } });
const inputs = ([...ATTEMPTS, ...ORDINARY] as Entry[]).filter((a) => a.tool === "Bash").map((a) => fillInput(a.input, p, 1));
const once = () => {
  for (const input of inputs) ev.decide({ toolName: "Bash", input, readOnly: false, cwd: p.cwd });
};
once();
const RUNS = 15;
const per: number[] = [];
for (let r = 0; r < RUNS; r++) {
  const t = performance.now();
  once();
  per.push((performance.now() - t) / inputs.length);
}
per.sort((a, b) => a - b);
const f = (n: number) => n.toFixed(2);
console.log(`${inputs.length} Bash inputs, ${RUNS} rounds: ${f(per[RUNS >> 1]!)} ms per decision (median; min ${f(per[0]!)}, max ${f(per[RUNS - 1]!)})`);
