// Issue 3, done means: one scripted session in the compiled binary uses every tool.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, toolResultsOf, type LoggedRequest } from "../helpers/fake-anthropic.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { isolatedEnv, runYoke, TRUST_WORKSPACE } from "../helpers/binary.ts";
import { gitRepo, tempDir, writeTree } from "../helpers/tmp.ts";

const fake = useFakeAnthropic();
let web: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  web = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<html><body><h1>Release notes</h1><p>Version 9 ships.</p></body></html>", { headers: { "content-type": "text/html" } }) });
});
afterAll(async () => {
  web.stop(true);
});

const systemOf = (r: LoggedRequest): string => (Array.isArray(r.body.system) ? r.body.system.map((b: { text: string }) => b.text).join("\n") : String(r.body.system ?? ""));

test("every tool in one session: results reach the model, files change, denied secrets stay out of Grep", async () => {
  const cwd = tempDir();
  writeTree(cwd, {
    "src/app.ts": "export const greet = () => 'hello';\n// TODO(ana): rename\n",
    "src/util.ts": "export const two = 2;\n",
    ".env": "TODO(secret)=API_KEY_123\n",
    "nb.ipynb": JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [{ id: "c1", cell_type: "code", source: ["print(1)\n"], metadata: {}, outputs: [], execution_count: null }] }),
    ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Read(.env)"], allow: ["WebFetch(domain:127.0.0.1)", "Bash"] } }),
  });
  gitRepo(cwd);
  const f = (p: string) => join(cwd, p);
  const steps: Array<{ name: string; input: Record<string, unknown> }> = [
    { name: "TodoWrite", input: { todos: [{ content: "rename greet", status: "in_progress", activeForm: "Renaming greet" }] } },
    { name: "Glob", input: { pattern: "src/**/*.ts" } },
    { name: "Grep", input: { pattern: "TODO\\(\\w+\\)", output_mode: "content" } },
    { name: "Read", input: { file_path: f("src/app.ts") } },
    { name: "Edit", input: { file_path: f("src/app.ts"), old_string: "greet", new_string: "welcome" } },
    { name: "Read", input: { file_path: f("src/util.ts") } },
    { name: "MultiEdit", input: { file_path: f("src/util.ts"), edits: [{ old_string: "two", new_string: "deux" }, { old_string: "2", new_string: "3" }] } },
    { name: "Write", input: { file_path: f("notes.md"), content: "# Notes\n" } },
    { name: "Read", input: { file_path: f("nb.ipynb") } },
    { name: "NotebookEdit", input: { notebook_path: f("nb.ipynb"), cell_id: "c1", new_source: "print(2)" } },
    { name: "Bash", input: { command: "git status --short | sort" } },
    { name: "Bash", input: { command: "echo tick1; sleep 30", run_in_background: true } },
    { name: "BashOutput", input: { bash_id: "bash_1" } },
    { name: "TaskStop", input: { task_id: "bash_1" } },
    { name: "WebFetch", input: { url: `http://127.0.0.1:${web.port}/notes`, prompt: "What version ships?" } },
    { name: "AskUserQuestion", input: { questions: [{ question: "Which name?", header: "Name", multiSelect: false, options: [{ label: "welcome", description: "a" }, { label: "hi", description: "b" }] }] } },
    { name: "Agent", input: { description: "Check util", prompt: "Read src/util.ts and report the constant.", subagent_type: "Explore" } },
    { name: "ExitPlanMode", input: { plan: "1. rename\n2. test" } },
  ];
  let step = 0;
  const route = (req: LoggedRequest) => {
    if (String(req.body.model).includes("haiku")) return { content: [{ type: "text" as const, text: "Version 9 ships." }] };
    if (systemOf(req).includes('subagent of type "Explore"')) {
      if ((req.body.messages as unknown[]).length === 1) return { content: [{ type: "tool_use" as const, name: "Read", input: { file_path: f("src/util.ts") } }] };
      return { content: [{ type: "text" as const, text: "util exports deux = 3" }] };
    }
    const s = steps[step++];
    if (!s) return { content: [{ type: "text" as const, text: "All tools used." }] };
    return { content: [{ type: "tool_use" as const, name: s.name, input: s.input }] };
  };
  for (let i = 0; i < 40; i++) fake.push(route);
  const before = fake.requests.length;
  const r = await runYoke(["-p", "use every tool", "--output-format", "json", "--permission-mode", "acceptEdits"], { cwd, env: isolatedEnv({ ...TRUST_WORKSPACE, ...fakeApiEnv(fake) }) });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ result: "All tools used.", is_error: false });
  const mainReqs = fake.requests.slice(before).filter((q) => !String(q.body.model).includes("haiku") && !systemOf(q).includes('subagent of type "Explore"'));
  const results = mainReqs.slice(1).map((q) => toolResultsOf(q)[0]!);
  const by = (i: number) => results[i]!;
  const names = steps.map((s) => s.name);
  expect(mainReqs[0]!.body.tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining([...new Set(names)]));
  for (const [i, n] of names.entries()) if (n !== "AskUserQuestion") expect({ n, err: by(i).is_error }).toEqual({ n, err: false });
  expect(by(1).text).toContain(f("src/app.ts"));
  expect(by(2).text).toContain("TODO(ana)");
  expect(by(2).text).not.toContain("API_KEY_123"); // the Read(.env) deny keeps the secret out of a whole-tree Grep
  expect(readFileSync(f("src/app.ts"), "utf8")).toContain("welcome");
  expect(readFileSync(f("src/util.ts"), "utf8")).toBe("export const deux = 3;\n");
  expect(readFileSync(f("notes.md"), "utf8")).toBe("# Notes\n");
  expect(JSON.parse(readFileSync(f("nb.ipynb"), "utf8")).cells[0].source.join("")).toBe("print(2)");
  expect(by(10).text).toContain("notes.md");
  expect(by(12).text).toMatch(/running/i);
  expect(by(13).text).toMatch(/kill|stop/i);
  expect(by(14).text).toContain("Version 9");
  expect(by(15)).toMatchObject({ is_error: true });
  expect(by(15).text).toMatch(/no user|not present|nobody/i);
  expect(by(16).text).toContain("deux = 3");
  expect(by(17).text).toMatch(/plan/i);
});
