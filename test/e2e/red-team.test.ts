// Issue 16, third red-team pass, end to end: the compiled binary in -p, the fake model making the calls, the kernel
// sandbox off (YOKE_SANDBOX=0) so only the static checks stand. A folder that came with its own `.git` whose config
// and hooks name a program, and code held in a variable's value: each call must come back denied (headless: an ask
// is denied) and nothing may run.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke } from "../helpers/binary.ts";
import { fakeApiEnv, toolResultsOf } from "../helpers/fake-anthropic.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { gitEnv, tempDir } from "../helpers/tmp.ts";

const fake = useFakeAnthropic();
const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

test("a shipped .git's fsmonitor, filter and post-index-change hook, and arithmetic over a code value, never run", async () => {
  const root = tempDir("yoke-red-team-e2e-");
  roots.push(root);
  const home = join(root, "home");
  const cwd = join(root, "proj");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(join(cwd, "tools"), { recursive: true });
  mkdirSync(join(cwd, "protected"), { recursive: true });
  writeFileSync(join(cwd, "protected", "keep.txt"), "keep\n");
  writeFileSync(join(cwd, "a.txt"), "a\n");
  writeFileSync(join(cwd, "tools", "evil.sh"), '#!/bin/sh\ntouch "$(dirname "$0")/../PWNED-$1"\ncat\n');
  chmodSync(join(cwd, "tools", "evil.sh"), 0o755);
  const env = gitEnv({ HOME: home, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.invalid", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.invalid" });
  for (const args of [["init", "-q"], ["add", "-A"], ["-c", "commit.gpgsign=false", "commit", "-qm", "one"]]) expect(Bun.spawnSync(["git", ...args], { cwd, env }).exitCode).toBe(0);
  // What the folder shipped in its .git: a filter for every file, an fsmonitor, a hook.
  writeFileSync(join(cwd, ".git", "config"), '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = tools/evil.sh fsmonitor\n[filter "x"]\n\tclean = tools/evil.sh filter\n');
  writeFileSync(join(cwd, ".git", "info", "attributes"), "* filter=x\n");
  writeFileSync(join(cwd, ".git", "hooks", "post-index-change"), '#!/bin/sh\ntouch "$PWD/PWNED-hook"\n', { mode: 0o755 });
  writeFileSync(join(cwd, "a.txt"), "changed\n");
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["Bash(rm:*)", "Edit(./protected/**)"] } }));
  const calls = [
    { id: "toolu_git_status", command: "git status" },
    { id: "toolu_git_diff", command: "git diff" },
    { id: "toolu_arith", command: "x='a[$(rm -rf protected)]'; echo $((x))" },
    { id: "toolu_arith_file", command: "printf 'a[$(tools/evil.sh arith </dev/null)]' > v.txt; x=$(cat v.txt); echo $((x))" },
    { id: "toolu_prompt", command: "x='$(rm -rf protected)'; echo ${x@P}" },
  ];
  const before = fake.requests.length;
  fake.push({ content: calls.map((c) => ({ type: "tool_use" as const, id: c.id, name: "Bash", input: { command: c.command } })) });
  fake.push({ content: [{ type: "text", text: "done" }] });
  for (const mode of ["default", "acceptEdits"]) {
    if (mode === "acceptEdits") {
      fake.push({ content: calls.map((c) => ({ type: "tool_use" as const, id: `${c.id}_ae`, name: "Bash", input: { command: c.command } })) });
      fake.push({ content: [{ type: "text", text: "done" }] });
    }
    const r = await runYoke(["-p", "go", "--output-format", "json", "--permission-mode", mode], {
      cwd,
      env: isolatedEnv({ ...fakeApiEnv(fake), HOME: home, CLAUDE_CONFIG_DIR: join(home, ".claude"), YOKE_CONFIG_DIR: join(home, ".yoke"), YOKE_SANDBOX: "0", YOKE_RETRY_BASE_MS: "5" }),
      timeoutMs: 120_000,
    });
    expect({ mode, code: r.code, stderr: r.stderr }).toMatchObject({ mode, code: 0 });
  }
  const results = fake.requests.slice(before).flatMap((q) => toolResultsOf(q));
  expect(results.length).toBe(calls.length * 2);
  for (const t of results) expect({ id: t.tool_use_id, denied: /^Permission to use Bash was denied/.test(t.text), text: t.text.slice(0, 200) }).toMatchObject({ denied: true });
  expect(readdirSync(cwd).filter((f) => f.startsWith("PWNED"))).toEqual([]);
  expect(existsSync(join(cwd, "protected", "keep.txt"))).toBe(true);
}, 300_000);
