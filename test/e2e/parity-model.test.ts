// Issue 17 points 6 and 7: relative file paths, and the model parameters Claude Code 2.1.332 sends (observed in
// 2.1.332 against the fake API: default model claude-opus-5-5, max_tokens 128000, adaptive thinking and an effort).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, startFakeAnthropic, toolResultsOf, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

// Each test runs the compiled binary (some several times): seconds apiece on a loaded 2-core machine.
setDefaultTimeout(30_000);

let fake: FakeAnthropic;
beforeAll(async () => {
  yokeBin();
  fake = await startFakeAnthropic();
});
afterAll(() => fake.stop());

const envFor = (extra: Record<string, string> = {}) => isolatedEnv({ ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5", ...extra });
const run = (args: string[], cwd: string, extra: Record<string, string> = {}) => runYoke(["-p", "go", ...args], { cwd, env: envFor(extra) });

describe("request parameters (issue 17.7)", () => {
  test("default model, max_tokens at the output limit, adaptive thinking, effort in output_config", async () => {
    fake.push({ content: [{ type: "text", text: "hi" }] });
    const before = fake.requests.length;
    const r = await run([], tempDir());
    expect(r.code).toBe(0);
    const body = fake.requests[before]!.body;
    expect(body.model).toBe("claude-opus-5-5");
    expect(body.max_tokens).toBe(128_000);
    expect(body.thinking).toEqual({ type: "adaptive", display: "omitted" });
    expect(body.output_config).toEqual({ effort: "medium" });
  });

  test("--effort and effortLevel reach the request; thinking stays adaptive whatever MAX_THINKING_TOKENS or alwaysThinkingEnabled say; stream-json asks for display updates (observed in 2.1.332)", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "s.json"), JSON.stringify({ effortLevel: "high", alwaysThinkingEnabled: false }));
    fake.push(...["a", "b", "c", "d"].map((text) => ({ content: [{ type: "text" as const, text }] })));
    const before = fake.requests.length;
    expect((await run(["--settings", join(cwd, "s.json")], cwd)).code).toBe(0);
    expect((await run(["--settings", join(cwd, "s.json"), "--effort", "low"], cwd, { MAX_THINKING_TOKENS: "5000" })).code).toBe(0);
    expect((await run(["--model", "haiku", "--output-format", "stream-json", "--verbose"], cwd)).code).toBe(0);
    expect((await run(["--model", "fable", "--thinking-display", "summarized"], cwd)).code).toBe(0);
    const [a, b, c, d] = fake.requests.slice(before).map((q) => q.body);
    expect(a.thinking).toEqual({ type: "adaptive", display: "omitted" });
    expect(a.output_config).toEqual({ effort: "high" });
    expect(b.thinking).toEqual({ type: "adaptive", display: "omitted" });
    expect(b.output_config).toEqual({ effort: "low" });
    expect(c.model).toBe("claude-haiku-5-5");
    expect(c.thinking).toEqual({ type: "adaptive", display: "updates" });
    expect(c.output_config).toEqual({ effort: "medium" });
    expect(d).toMatchObject({ model: "claude-fable-5-2", max_tokens: 128_000, thinking: { type: "adaptive", display: "summarized" }, output_config: { effort: "medium" } });
  });

  test("a bad --effort is an error naming the flag and the allowed values", async () => {
    const r = await run(["--effort", "extreme"], tempDir());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--effort must be one of low, medium, high, xhigh, max (got 'extreme')");
  });

  test("thinking blocks go back signed and unchanged on the next request of a tool loop", async () => {
    const cwd = tempDir();
    fake.push(
      { content: [{ type: "thinking", thinking: "I should list files", signature: "sig-abc" }, { type: "tool_use", name: "Bash", input: { command: "echo hi" } }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const before = fake.requests.length;
    const r = await run(["--allowedTools", "Bash"], cwd);
    expect(r.code).toBe(0);
    const second = fake.requests[before + 1]!.body.messages as any[];
    const assistant = second.find((m) => m.role === "assistant");
    expect(assistant.content[0]).toEqual({ type: "thinking", thinking: "I should list files", signature: "sig-abc" });
  });

  test("total_cost_usd follows the table, and --max-budget-usd stops on the same figure", async () => {
    // 1M input tokens on opus-5-5 cost $4 (observed in 2.1.332); a $3.99 budget is spent, a $4.01 one is not.
    const usage = { input_tokens: 1_000_000, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    fake.push({ content: [{ type: "text", text: "one" }], usage });
    const one = await run(["--output-format", "json"], tempDir());
    expect(JSON.parse(one.stdout).total_cost_usd).toBeCloseTo(4, 6);
    const cwd = tempDir();
    fake.push({ content: [{ type: "tool_use", name: "Read", input: { file_path: join(cwd, "none") } }], usage });
    const stopped = await run(["--output-format", "json", "--max-budget-usd", "3.99"], cwd);
    expect(JSON.parse(stopped.stdout).subtype).toBe("error_max_budget_usd");
    fake.push({ content: [{ type: "tool_use", name: "Read", input: { file_path: join(cwd, "none") } }], usage }, { content: [{ type: "text", text: "went on" }] });
    const goes = await run(["--output-format", "json", "--max-budget-usd", "4.01"], cwd);
    expect(JSON.parse(goes.stdout).result).toBe("went on");
  });
});

describe("relative file paths (issue 17.6)", () => {
  test("Read, Write, Edit, MultiEdit and NotebookEdit resolve a relative path against the cwd, as Claude Code does", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "a.txt"), "alpha\n");
    const nb = { nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [{ id: "c1", cell_type: "code", source: ["print(1)\n"], metadata: {}, outputs: [], execution_count: null }] };
    writeFileSync(join(cwd, "nb.ipynb"), JSON.stringify(nb));
    const call = (name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, name, input }] });
    fake.push(
      call("Read", { file_path: "a.txt" }),
      call("Edit", { file_path: "./a.txt", old_string: "alpha", new_string: "beta" }),
      call("Write", { file_path: "sub/../b.txt", content: "new\n" }),
      call("Read", { file_path: "b.txt" }),
      call("MultiEdit", { file_path: "b.txt", edits: [{ old_string: "new", new_string: "newer" }] }),
      call("Read", { file_path: "nb.ipynb" }),
      call("NotebookEdit", { notebook_path: "nb.ipynb", cell_id: "c1", new_source: "print(2)" }),
      { content: [{ type: "text", text: "all done" }] },
    );
    const before = fake.requests.length;
    const r = await run(["--permission-mode", "acceptEdits"], cwd);
    expect(r.code).toBe(0);
    for (let i = 1; i <= 7; i++) expect(toolResultsOf(fake.requests[before + i]!)[0]).toMatchObject({ is_error: false });
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("beta\n");
    expect(readFileSync(join(cwd, "b.txt"), "utf8")).toBe("newer\n");
    expect(readFileSync(join(cwd, "nb.ipynb"), "utf8")).toContain("print(2)");
  });
});
