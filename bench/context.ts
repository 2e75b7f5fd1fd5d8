// Instruction discovery speed: `bun run bench/context.ts`. Prints medians; targets 5 ms (deep tree) and 20 ms (monorepo).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInstructionCache } from "../src/context/cache.ts";
import { discoverInstructions } from "../src/context/instructions.ts";

const RUNS = 15;
const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-bench-context-")));
const env = { HOME: join(root, "home"), CLAUDE_CONFIG_DIR: join(root, "home/.claude"), YOKE_MANAGED_DIR: join(root, "managed"), YOKE_CONFIG_DIR: join(root, "home/.yoke") };
const settings = { merged: {}, sources: [] };

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(fn: () => unknown): number {
  fn(); // warm the page cache and the JIT once
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    fn();
    xs.push(performance.now() - t);
  }
  return median(xs);
}

function write(p: string, text: string) {
  mkdirSync(join(p, ".."), { recursive: true });
  writeFileSync(p, text);
}

const rule = "- Keep functions small.\n- Write tests first.\n".repeat(20);

// 1. A 40-level tree with CLAUDE.md, .claude/CLAUDE.md, a rule, a conditional rule and CLAUDE.local.md at every level.
let deep = join(root, "deep");
for (let i = 0; i < 40; i++) {
  deep = join(deep, `level${i}`);
  write(join(deep, "CLAUDE.md"), `# Level ${i}\n${rule}`);
  write(join(deep, ".claude/CLAUDE.md"), `dot ${i}`);
  write(join(deep, ".claude/rules/style.md"), `style ${i}`);
  write(join(deep, ".claude/rules/ts.md"), `---\npaths: "src/**/*.ts"\n---\nts ${i}`);
  write(join(deep, "CLAUDE.local.md"), `local ${i}`);
}
const deepFiles = discoverInstructions({ cwd: deep, env, settings }).files.length;
const deepMs = time(() => discoverInstructions({ cwd: deep, env, settings }));
const deepClawMs = time(() => discoverInstructions({ cwd: deep, env, settings, loader: "claw-code" }));
const deepCache = createInstructionCache({ cwd: deep, env, settings });
deepCache.get();
const deepCacheMs = time(() => deepCache.get());

// 2. A monorepo of 5,000 directories: 100 packages × 49 subdirectories, CLAUDE.md in every package.
const mono = join(root, "mono");
mkdirSync(join(mono, ".git"), { recursive: true });
write(join(mono, "CLAUDE.md"), `# Monorepo\n${rule}`);
write(join(mono, ".claude/rules/general.md"), "general");
for (let p = 0; p < 100; p++) {
  const pkg = join(mono, "packages", `pkg${p}`);
  write(join(pkg, "CLAUDE.md"), `package ${p}`);
  for (let d = 0; d < 49; d++) mkdirSync(join(pkg, `src/d${d}`), { recursive: true });
}
const monoCwd = join(mono, "packages/pkg50/src/d25");
const monoFiles = discoverInstructions({ cwd: monoCwd, env, settings }).files.length;
const monoMs = time(() => discoverInstructions({ cwd: monoCwd, env, settings }));
const monoRootMs = time(() => discoverInstructions({ cwd: mono, env, settings }));
const lazyMs = time(() => discoverInstructions({ cwd: mono, env, settings }).onFileRead(join(mono, "packages/pkg7/src/d3/file.ts")));

rmSync(root, { recursive: true, force: true });

const row = (name: string, ms: number, target?: number) =>
  `${name.padEnd(58)}${ms.toFixed(2).padStart(8)} ms${target ? `   target ${target} ms  ${ms <= target ? "ok" : "SLOW"}` : ""}`;
console.log(`median of ${RUNS} runs`);
console.log(row(`40-level tree, claude-code (${deepFiles} files)`, deepMs, 5));
console.log(row("40-level tree, claw-code", deepClawMs, 5));
console.log(row("40-level tree, cache hit (mtime re-check)", deepCacheMs));
console.log(row(`monorepo 5,000 dirs, cwd in a package (${monoFiles} files)`, monoMs, 20));
console.log(row("monorepo 5,000 dirs, cwd at root", monoRootMs, 20));
console.log(row("monorepo, discovery + one nested onFileRead", lazyMs, 20));
