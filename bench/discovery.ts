// File discovery (findFiles, on Bun.Glob) vs the hand-written walkers it replaced or did not: `bun run bench/discovery.ts`.
// Prints medians in ms. The README's design notes quote these figures.
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { discoverInstructions } from "../src/context/instructions.ts";
import { findFiles } from "../src/util/find-files.ts";

const RUNS = 31;
const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-bench-discovery-")));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
function time(fn: () => unknown): number {
  fn();
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    fn();
    xs.push(performance.now() - t);
  }
  return median(xs);
}
function tree(dir: string, files: number, perDir: number) {
  for (let i = 0; i < files; i++) {
    const d = join(dir, `g${Math.floor(i / perDir)}`);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `f${i}.md`), `---\nname: a${i}\ndescription: d\n---\nbody\n`);
  }
}

/** The agents walker before findFiles (src/agent/load.ts): recursive readdir, then a stat per .md. */
function oldMarkdownFiles(dir: string): string[] {
  try {
    if (!statSync(dir).isDirectory()) return [];
  } catch {
    return [];
  }
  const rel = readdirSync(dir, { recursive: true }) as string[];
  return rel
    .filter((r) => r.endsWith(".md"))
    .sort()
    .slice(0, 1000)
    .map((r) => join(dir, r))
    .filter((p) => !statSync(p).isDirectory());
}

const row = (name: string, a: number, b: number) => console.log(`${name.padEnd(44)} old ${a.toFixed(3).padStart(8)}  findFiles ${b.toFixed(3).padStart(8)}  ratio ${(b / a).toFixed(2)}`);

const missing = join(root, "missing", ".claude", "agents");
row("agents: folder absent (the common case)", time(() => oldMarkdownFiles(missing)), time(() => findFiles(missing, "**/*.md", { max: 1000 })));
for (const n of [20, 1000]) {
  const d = join(root, `agents${n}`);
  tree(d, n, 10);
  row(`agents: ${n} files in ${Math.ceil(n / 10)} folders`, time(() => oldMarkdownFiles(d)), time(() => findFiles(d, "**/*.md", { max: 1000 })));
}

// Rules stay on their walker, which also records every folder it reads for the instruction cache's staleness
// check. A glob version needs a second walk for those folders: both are timed against the walker alone
// (through a whole instruction discovery of a project whose only instruction files are the rules).
const proj = join(root, "proj");
const rulesDir = join(proj, ".claude", "rules");
tree(rulesDir, 200, 20);
const home = join(root, "home");
const env = { HOME: home, CLAUDE_CONFIG_DIR: join(home, ".claude"), YOKE_MANAGED_DIR: join(root, "managed"), YOKE_CONFIG_DIR: join(home, ".yoke") };
const probes = new Set<string>();
const whole = time(() => discoverInstructions({ cwd: proj, env, settings: { merged: {}, sources: [] }, probes } as never));
const globbed = time(() => [findFiles(rulesDir, "**/*.md"), [...new Bun.Glob("**").scanSync({ cwd: rulesDir, onlyFiles: false })]]);
console.log(`rules: 200 files in 10 folders: whole discovery (walker) ${whole.toFixed(3)} ms; findFiles + a folder glob alone ${globbed.toFixed(3)} ms`);
rmSync(root, { recursive: true, force: true });
