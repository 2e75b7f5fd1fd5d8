// Workspace-trust cost at startup: `bun run bench/trust.ts`. Prints medians; target < 5 ms for a typical trusted repo.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { loadSettings } from "../src/config/load.ts";
import { applyWorkspaceTrust, trustFolder } from "../src/trust/workspace.ts";

const RUNS = 51;
const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-bench-trust-")));
const env = { HOME: join(root, "home"), CLAUDE_CONFIG_DIR: join(root, "home/.claude"), YOKE_MANAGED_DIR: join(root, "managed"), YOKE_CONFIG_DIR: join(root, "home/.yoke") };

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

function write(p: string, text: string) {
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
}

/** A repo with settings, `hooks` hook scripts and a plugin of `pluginFiles` files of ~4 KiB each. */
function repo(name: string, hooks: number, pluginFiles: number): string {
  const dir = join(root, name);
  const commands = Array.from({ length: hooks }, (_, i) => ({ type: "command", command: `$CLAUDE_PROJECT_DIR/.claude/hooks/h${i}.sh` }));
  write(join(dir, ".claude/settings.json"), JSON.stringify({ permissions: { allow: ["Bash(npm test:*)"] }, hooks: { PreToolUse: [{ matcher: "*", hooks: commands }] } }));
  for (let i = 0; i < hooks; i++) write(join(dir, `.claude/hooks/h${i}.sh`), `#!/bin/sh\n${"echo checking\n".repeat(100)}`);
  for (let i = 0; i < pluginFiles; i++) write(join(dir, `.yoke/plugins/big/src/f${i}.ts`), `export const x${i} = ${JSON.stringify("x".repeat(4000))};\n`);
  return dir;
}

const rows: Array<[string, number]> = [];
for (const [label, hooks, files] of [
  ["settings only, untrusted", 0, 0],
  ["settings + 5 hook scripts, trusted", 5, 0],
  ["settings + 5 hooks + plugin of 200 files (800 KiB), trusted", 5, 200],
] as const) {
  const dir = repo(label.replace(/\W+/g, "-"), hooks, files);
  if (label.includes("trusted") && !label.includes("untrusted")) trustFolder(dir, loadSettings({ cwd: dir, env }), env);
  rows.push([label, time(() => applyWorkspaceTrust(loadSettings({ cwd: dir, env }), { cwd: dir, env }))]);
}
for (const [label, ms] of rows) console.log(`${label.padEnd(62)} ${ms.toFixed(2)} ms (settings load included)`);
rmSync(root, { recursive: true, force: true });
