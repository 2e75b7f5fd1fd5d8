// Issue 6 end to end: what the model sees, read from the fake server's request log.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { fakeApiEnv } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke } from "../helpers/binary.ts";
import { gitRepo, tempDir, writeTree } from "../helpers/tmp.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";

const fake = useFakeAnthropic();

const userText = (msg: any): string => (typeof msg.content === "string" ? msg.content : msg.content.map((b: any) => b.text ?? JSON.stringify(b.content ?? "")).join("\n"));

test("instruction files in the first user message, lazy rules after a Read, memory index, system sections (contracts §8)", async () => {
  const cwd = tempDir();
  writeTree(cwd, {
    "CLAUDE.md": "Project rule: use tabs.\n@docs/extra.md\n",
    "docs/extra.md": "Imported rule.\n",
    "CLAUDE.local.md": "Local note.\n",
    ".claude/rules/ts.md": "---\npaths: ['src/**/*.ts']\n---\nTypeScript rule: no any.\n",
    "src/a.ts": "export const a = 1;\n",
    "src/CLAUDE.md": "Nested src rule.\n",
  });
  gitRepo(cwd);
  const env = isolatedEnv({ ...fakeApiEnv(fake) });
  const memDir = join(env.YOKE_CONFIG_DIR!, "projects", cwd.replace(/[^a-zA-Z0-9]/g, "-"), "memory");
  writeTree(memDir, { "MEMORY.md": "- [prefers tabs](prefs.md) the user likes tabs\n" });
  writeTree(env.HOME!, { ".claude/CLAUDE.md": "User-wide rule.\n" });
  const before = fake.requests.length;
  fake.push({ content: [{ type: "tool_use", name: "Read", input: { file_path: join(cwd, "src/a.ts") } }] }, { content: [{ type: "text", text: "ok" }] });
  const r = await runYoke(["-p", "look at a.ts", "--append-system-prompt", "APPENDED-TEXT"], { cwd, env });
  expect(r.code).toBe(0);
  const first = fake.requests[before]!.body;
  const firstUser = userText(first.messages[0]);
  const order = ["User-wide rule.", "Project rule: use tabs.", "Imported rule.", "Local note.", "prefers tabs", "look at a.ts"].map((s) => firstUser.indexOf(s));
  for (const i of order) expect(i).toBeGreaterThanOrEqual(0);
  expect([...order].sort((a, b) => a - b)).toEqual(order);
  expect(firstUser).not.toContain("TypeScript rule");
  expect(firstUser).not.toContain("Nested src rule");
  const sys = first.system.map((b: any) => b.text).join("\n");
  expect(sys).toContain(cwd);
  expect(sys).toContain("APPENDED-TEXT");
  // The attribution plugin section is asserted in test/e2e/plugins.test.ts.
  const second = fake.requests[before + 1]!.body;
  const afterRead = userText(second.messages.at(-1));
  expect(afterRead).toContain("TypeScript rule: no any.");
  expect(afterRead).toContain("Nested src rule.");
});

test("--bare loads no instruction files and no memory", async () => {
  const cwd = tempDir();
  writeTree(cwd, { "CLAUDE.md": "SHOULD-NOT-APPEAR\n" });
  const before = fake.requests.length;
  fake.push({ content: [{ type: "text", text: "ok" }] });
  const r = await runYoke(["-p", "hi", "--bare"], { cwd, env: isolatedEnv({ ...fakeApiEnv(fake) }) });
  expect(r.code).toBe(0);
  expect(JSON.stringify(fake.requests[before]!.body)).not.toContain("SHOULD-NOT-APPEAR");
});

test("yoke context explains every file; --json is machine-readable", async () => {
  const cwd = tempDir();
  writeTree(cwd, { "CLAUDE.md": "x\n", "AGENTS.md": "agents\n", ".claude/rules/r.md": "---\npaths: ['**/*.py']\n---\npy\n" });
  const env = isolatedEnv();
  const r = await runYoke(["context"], { cwd, env });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(join(cwd, "CLAUDE.md"));
  expect(r.stdout).toContain("deferred");
  const j = await runYoke(["context", "--json"], { cwd, env });
  const rep = JSON.parse(j.stdout);
  expect(rep.files.find((f: any) => f.path === join(cwd, ".claude/rules/r.md")).status).toBe("deferred");
  expect(rep.breakdown.tools).toBeGreaterThan(0);
});

test("yoke context counts MEMORY.md once in the memory figure", async () => {
  const cwd = tempDir();
  const env = isolatedEnv();
  const memDir = join(env.YOKE_CONFIG_DIR!, "projects", cwd.replace(/[^a-zA-Z0-9]/g, "-"), "memory");
  writeTree(memDir, { "MEMORY.md": `${"m".repeat(400)}\n` });
  const j = await runYoke(["context", "--json"], { cwd, env });
  expect(j.code).toBe(0);
  const rep = JSON.parse(j.stdout);
  expect(rep.files.find((f: any) => f.layer === "memory").tokens).toBe(100);
  expect(rep.breakdown.memory).toBe(100);
});
