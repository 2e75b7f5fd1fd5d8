// End-to-end: the compiled binary against the fake Anthropic API over real HTTP/SSE (issue 2).
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, toolResultsOf } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke, TRUST_WORKSPACE } from "../helpers/binary.ts";
import { gitRepo, tempDir } from "../helpers/tmp.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { waitFor } from "../helpers/wait-for.ts";

const fake = useFakeAnthropic();

const envFor = (extra: Record<string, string> = {}) => isolatedEnv({ ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5", ...extra });

function transcriptLines(env: Record<string, string>): any[] {
  const projects = join(env.YOKE_CONFIG_DIR!, "projects");
  const [dir] = readdirSync(projects);
  const [file] = readdirSync(join(projects, dir!)).filter((f) => f.endsWith(".jsonl"));
  return readFileSync(join(projects, dir!, file!), "utf8").trim().split("\n").map((l) => JSON.parse(l));
}

describe("yoke -p against the fake API", () => {
  test("text output prints the result; transcript holds the chain (contracts §4.1, §5.2)", async () => {
    const cwd = tempDir();
    fake.push({ content: [{ type: "text", text: "Hello from the fake." }] });
    const env = envFor();
    const r = await runYoke(["-p", "say hi"], { cwd, env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Hello from the fake.\n");
    const lines = transcriptLines(env).filter((l) => l.type === "user" || l.type === "assistant");
    expect(lines.map((l) => l.type)).toEqual(["user", "assistant"]);
    expect(lines[0].gitBranch).toBeUndefined(); // not a git repo
    expect(lines[0].parentUuid).toBeNull();
    expect(lines[1].parentUuid).toBe(lines[0].uuid);
    expect(lines[0].message).toEqual({ role: "user", content: "say hi" });
    expect(lines[0].cwd).toBe(cwd);
  });

  test("Write → Read → text in stream-json: init, per-block assistant lines, user tool results, result", async () => {
    const cwd = tempDir();
    const file = join(cwd, "out.txt");
    fake.push(
      { content: [{ type: "text", text: "Writing." }, { type: "tool_use", name: "Write", input: { file_path: file, content: "hello\n" } }] },
      { content: [{ type: "tool_use", name: "Read", input: { file_path: file } }] },
      { content: [{ type: "text", text: "Done." }] },
    );
    const before = fake.requests.length;
    const r = await runYoke(["-p", "write a file", "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits"], { cwd, env: envFor() });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "system", subtype: "init", cwd, permissionMode: "acceptEdits" });
    expect(lines[0].tools).toContain("Write");
    const types = lines.map((l) => (l.type === "system" ? `system/${l.subtype}` : l.type));
    // No echo of the prompt (contracts §4.3; cc-2.1.332-shapes/roundtrip-stdout-shape.txt).
    expect(types).toEqual(["system/init", "assistant", "assistant", "user", "assistant", "user", "assistant", "result"]);
    expect(lines[1].message.id).toBe(lines[2].message.id);
    expect(lines[3].tool_use_result).toMatchObject({ type: "create", filePath: file });
    expect(readFileSync(file, "utf8")).toBe("hello\n");
    const res = lines.at(-1);
    expect(res).toMatchObject({ type: "result", subtype: "success", is_error: false, num_turns: 3, result: "Done.", permission_denials: [] });
    expect(res.usage.output_tokens).toBeGreaterThan(0);
    expect(res.total_cost_usd).toBeGreaterThan(0);
    const results = toolResultsOf(fake.requests[before + 2]!);
    expect(results[0]!.text).toContain("1\thello");
  });

  test("json output; a 529, a 429 and a cut stream in a row are retried and the run succeeds", async () => {
    const cwd = tempDir();
    fake.push({ fault: 529 }, { fault: 429, retryAfter: 0 }, { fault: "cut" }, { content: [{ type: "text", text: "made it" }] });
    const r = await runYoke(["-p", "hi", "--output-format", "json"], { cwd, env: envFor() });
    expect(r.code).toBe(0);
    const res = JSON.parse(r.stdout);
    expect(res).toMatchObject({ type: "result", subtype: "success", is_error: false, result: "made it" });
  });

  test("retries show as system/api_retry lines in stream-json", async () => {
    fake.push({ fault: 500 }, { content: [{ type: "text", text: "ok" }] });
    const r = await runYoke(["-p", "hi", "--output-format", "stream-json", "--verbose"], { cwd: tempDir(), env: envFor() });
    const retry = r.stdout.trim().split("\n").map((l) => JSON.parse(l)).find((l) => l.subtype === "api_retry");
    expect(retry).toMatchObject({ type: "system", subtype: "api_retry", attempt: 1, max_retries: 10, error_status: 500 });
    expect(r.code).toBe(0);
  });

  test("a non-retryable API error ends with is_error, exit 1 (contracts §4.1)", async () => {
    fake.push({ fault: 400, message: "bad thing" });
    const r = await runYoke(["-p", "hi", "--output-format", "json"], { cwd: tempDir(), env: envFor() });
    expect(r.code).toBe(1);
    const res = JSON.parse(r.stdout);
    expect(res).toMatchObject({ subtype: "success", is_error: true, api_error_status: 400, terminal_reason: "api_error" });
    expect(res.result).toContain("bad thing");
  });

  test("--max-turns ends with error_max_turns", async () => {
    const cwd = tempDir();
    fake.push({ content: [{ type: "tool_use", name: "Read", input: { file_path: join(cwd, "nope") } }] });
    const r = await runYoke(["-p", "hi", "--output-format", "json", "--max-turns", "1"], { cwd, env: envFor() });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: "error_max_turns", is_error: true, num_turns: 2, errors: ["Reached maximum number of turns (1)"] });
  });

  test("default mode denies a write headless, with permission_denials and a result the model can act on", async () => {
    const cwd = tempDir();
    const file = join(cwd, "x.txt");
    fake.push({ content: [{ type: "tool_use", name: "Write", input: { file_path: file, content: "x" } }] }, { content: [{ type: "text", text: "I could not write." }] });
    const before = fake.requests.length;
    const r = await runYoke(["-p", "write", "--output-format", "json"], { cwd, env: envFor() });
    const res = JSON.parse(r.stdout);
    expect(res.permission_denials).toHaveLength(1);
    expect(res.permission_denials[0]).toMatchObject({ tool_name: "Write", tool_input: { file_path: file } });
    expect(existsSync(file)).toBe(false);
    const tr = toolResultsOf(fake.requests[before + 1]!);
    expect(tr[0]!.is_error).toBe(true);
    expect(tr[0]!.text).toContain("denied");
  });

  test("bad tool input and an unknown tool become is_error results, the run goes on", async () => {
    fake.push(
      { content: [{ type: "tool_use", name: "Read", input: { wrong: 1 } }, { type: "tool_use", name: "Nope", input: {} }] },
      { content: [{ type: "text", text: "ok" }] },
    );
    const before = fake.requests.length;
    const r = await runYoke(["-p", "x"], { cwd: tempDir(), env: envFor() });
    expect(r.code).toBe(0);
    const tr = toolResultsOf(fake.requests[before + 1]!);
    expect(tr[0]!.is_error).toBe(true);
    expect(tr[0]!.text).toContain("file_path");
    expect(tr[1]!.text).toContain("No such tool available: Nope");
  });
});

describe("bad input is a clear error", () => {
  test("unknown flag", async () => {
    const r = await runYoke(["--nope"], { env: isolatedEnv() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("unknown option '--nope'");
  });
  test("stream-json without --verbose (contracts §4.1)", async () => {
    const r = await runYoke(["-p", "x", "--output-format", "stream-json"], { env: envFor() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("requires --verbose");
  });
  test("invalid settings JSON names file and line", async () => {
    const cwd = tempDir();
    await Bun.write(join(cwd, ".claude/settings.json"), '{\n  "model": "x",\n  "env": {,}\n}');
    const r = await runYoke(["-p", "x"], { cwd, env: envFor() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(join(cwd, ".claude/settings.json") + ":3:");
  });
  test("invalid settings field names the field", async () => {
    const cwd = tempDir();
    await Bun.write(join(cwd, ".claude/settings.json"), JSON.stringify({ permissions: { allow: "Bash" } }));
    const r = await runYoke(["-p", "x"], { cwd, env: envFor() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('field "permissions.allow"');
  });
  test("no credentials", async () => {
    const r = await runYoke(["-p", "x"], { env: isolatedEnv() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("ANTHROPIC_API_KEY");
  });
  test("--version and --help", async () => {
    const v = await runYoke(["--version"], { env: isolatedEnv() });
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+ \(yoke\)\n$/);
    const h = await runYoke(["--help"], { env: isolatedEnv() });
    expect(h.stdout).toContain("--output-format");
  });
});

describe("Write → Bash → text in all three output formats (issue 2, done means)", () => {
  const script = (file: string) => [
    { content: [{ type: "tool_use" as const, name: "Write", input: { file_path: file, content: "echo from-script\n" } }] },
    { content: [{ type: "tool_use" as const, name: "Bash", input: { command: `sh ${file}`, description: "run it" } }] },
    { content: [{ type: "text" as const, text: "All done." }] },
  ];
  for (const format of ["text", "json", "stream-json"] as const) {
    test(format, async () => {
      const cwd = tempDir();
      gitRepo(cwd);
      const file = join(cwd, "run.sh");
      const before = fake.requests.length;
      fake.push(...script(file));
      const env = envFor();
      const args = ["-p", "write and run a script", "--output-format", format, "--permission-mode", "acceptEdits", "--allowedTools", "Bash(sh:*)"];
      if (format === "stream-json") args.push("--verbose");
      const r = await runYoke(args, { cwd, env });
      expect(r.code).toBe(0);
      const bashResult = toolResultsOf(fake.requests[before + 2]!)[0]!;
      expect(bashResult).toMatchObject({ is_error: false });
      expect(bashResult.text).toContain("from-script");
      if (format === "text") expect(r.stdout).toBe("All done.\n");
      if (format === "json") expect(JSON.parse(r.stdout)).toMatchObject({ result: "All done.", num_turns: 3, is_error: false });
      if (format === "stream-json") {
        const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
        const bashUser = lines.find((l) => l.type === "user" && l.tool_use_result?.stdout !== undefined);
        expect(bashUser.tool_use_result).toMatchObject({ stdout: "from-script", stderr: "", interrupted: false }); // trimmed, as contracts §5.2 shows
        expect(lines.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "All done." });
      }
      const conv = transcriptLines(env).filter((l) => l.type === "user" || l.type === "assistant");
      expect(conv.map((l) => l.type)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
      expect(conv.every((l) => l.gitBranch === "main")).toBe(true); // contracts §5.2
      expect(conv[4].toolUseResult.stdout).toBe("from-script");
      for (let i = 1; i < conv.length; i++) expect(conv[i].parentUuid).toBe(conv[i - 1].uuid);
    });
  }
});

test("stream-json input: control initialize answered, each user line is a turn with its own result (contracts §4.5, §4.6)", async () => {
  fake.push({ content: [{ type: "text", text: "first" }] }, { content: [{ type: "text", text: "second" }] });
  const before = fake.requests.length;
  const stdin = [
    { type: "control_request", request_id: "req_1", request: { subtype: "initialize" } },
    { type: "user", session_id: "", message: { role: "user", content: [{ type: "text", text: "one" }] }, parent_tool_use_id: null },
    { type: "control_request", request_id: "req_2", request: { subtype: "no_such_thing" } },
    { type: "user", session_id: "", message: { role: "user", content: "two" }, parent_tool_use_id: null },
  ]
    .map((l) => JSON.stringify(l))
    .join("\n");
  const r = await runYoke(["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"], { cwd: tempDir(), env: envFor(), stdin });
  expect(r.code).toBe(0);
  const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  const init = lines.find((l) => l.type === "control_response" && l.response.request_id === "req_1");
  expect(init.response).toMatchObject({ subtype: "success", response: { pid: expect.any(Number) } });
  const bad = lines.find((l) => l.type === "control_response" && l.response.request_id === "req_2");
  expect(bad.response).toMatchObject({ subtype: "error" });
  expect(bad.response.error).toContain("no_such_thing");
  expect(lines.filter((l) => l.type === "result").map((l) => l.result)).toEqual(["first", "second"]);
  // The second turn carries the first turn's history.
  expect(fake.requests[before + 1]!.body.messages).toHaveLength(3);
});

describe("provider configuration (issue 2 point 4)", () => {
  test("ANTHROPIC_AUTH_TOKEN is sent as a bearer token; --model aliases resolve from the one table", async () => {
    fake.push({ content: [{ type: "text", text: "ok" }] });
    const before = fake.requests.length;
    const env = isolatedEnv({ ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_AUTH_TOKEN: "tok-123" });
    const r = await runYoke(["-p", "hi", "--model", "opus"], { cwd: tempDir(), env });
    expect(r.code).toBe(0);
    const req = fake.requests[before]!;
    expect(req.headers.authorization).toBe("Bearer tok-123");
    expect(req.body.model).toBe("claude-opus-5-5");
  });
  test("ANTHROPIC_MODEL picks the model when no flag is given; settings model is below it", async () => {
    const cwd = tempDir();
    await Bun.write(join(cwd, ".claude/settings.json"), JSON.stringify({ model: "haiku" }));
    fake.push({ content: [{ type: "text", text: "ok" }] }, { content: [{ type: "text", text: "ok" }] });
    const before = fake.requests.length;
    await runYoke(["-p", "hi"], { cwd, env: envFor() });
    expect(fake.requests[before]!.body.model).toBe("claude-haiku-5-5");
    await runYoke(["-p", "hi"], { cwd, env: envFor({ ANTHROPIC_MODEL: "claude-custom-1" }) });
    expect(fake.requests[before + 1]!.body.model).toBe("claude-custom-1");
  });
});

test("--include-partial-messages adds stream_event lines before the assistant block (contracts §4.3)", async () => {
  fake.push({ content: [{ type: "text", text: "streamed words arrive in pieces" }] });
  const r = await runYoke(["-p", "hi", "--output-format", "stream-json", "--verbose", "--include-partial-messages"], { cwd: tempDir(), env: envFor() });
  expect(r.code).toBe(0);
  const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  const events = lines.filter((l) => l.type === "stream_event").map((l) => l.event.type);
  expect(events[0]).toBe("message_start");
  expect(events).toContain("content_block_delta");
  expect(events.at(-1)).toBe("message_stop");
  const firstDelta = lines.findIndex((l) => l.type === "stream_event" && l.event.type === "content_block_delta");
  const assistant = lines.findIndex((l) => l.type === "assistant");
  expect(firstDelta).toBeLessThan(assistant);
  const text = lines.filter((l) => l.type === "stream_event" && l.event.delta?.type === "text_delta").map((l) => l.event.delta.text).join("");
  expect(text).toBe("streamed words arrive in pieces");
  fake.push({ content: [{ type: "text", text: "again" }] });
  const plain = await runYoke(["-p", "hi", "--output-format", "stream-json", "--verbose"], { cwd: tempDir(), env: envFor() });
  expect(plain.stdout).not.toContain('"stream_event"');
});

test("settings env reaches Bash and hooks; a background shell dies with the session (issue 2 pt 3, issue 3 pt 4)", async () => {
  const cwd = tempDir();
  const pidFile = join(cwd, "bg.pid");
  const hookOut = join(cwd, "hook-env.txt");
  await Bun.write(
    join(cwd, ".claude/settings.json"),
    JSON.stringify({
      env: { YOKE_TEST_FLAVOUR: "mint" },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `sh -c 'cat >/dev/null; echo "$YOKE_TEST_FLAVOUR" >> ${hookOut}'` }] }] },
    }),
  );
  fake.push(
    { content: [{ type: "tool_use", name: "Bash", input: { command: "echo flavour=$YOKE_TEST_FLAVOUR" } }] },
    { content: [{ type: "tool_use", name: "Bash", input: { command: `sleep 300 & echo $! > ${pidFile}; wait`, run_in_background: true } }] },
    // Barrier: the session may end only once the background shell has written its pid (on a loaded machine the
    // shell can start after the next model request; ending before it would leave no pid to check).
    async () => {
      await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"), "the background shell to write its pid");
      return { content: [{ type: "text", text: "leaving it running" }] };
    },
  );
  const before = fake.requests.length;
  const r = await runYoke(["-p", "go", "--allowedTools", "Bash"], { cwd, env: envFor({ ...TRUST_WORKSPACE }), timeoutMs: 60_000 });
  expect(r.code).toBe(0);
  expect(toolResultsOf(fake.requests[before + 1]!)[0]!.text).toContain("flavour=mint");
  expect(readFileSync(hookOut, "utf8").trim().split("\n")).toEqual(["mint", "mint"]);
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  // Gone, or a zombie waiting for its reaper: killed either way (a loaded machine may take a while to run the kill).
  const alive = () => {
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      return false;
    }
  };
  await waitFor(() => !alive(), `the background shell's sleep (pid ${pid}) to die with the session`);
}, 90_000);

test("a prompt piped on stdin without -p runs headless (no terminal, no interactive mode)", async () => {
  fake.push({ content: [{ type: "text", text: "piped ok" }] });
  const before = fake.requests.length;
  const r = await runYoke([], { cwd: tempDir(), env: envFor(), stdin: "explain the build\n" });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("piped ok\n");
  expect(JSON.stringify(fake.requests[before]!.body.messages)).toContain("explain the build");
});

test("--max-budget-usd stops before the next request once spent (contracts §4.1)", async () => {
  const cwd = tempDir();
  // A big usage figure makes the first response cost more than the budget.
  fake.push({ content: [{ type: "tool_use", name: "Read", input: { file_path: join(cwd, "none") } }], usage: { input_tokens: 100_000, output_tokens: 10_000 } });
  const before = fake.requests.length;
  const r = await runYoke(["-p", "hi", "--output-format", "json", "--max-budget-usd", "0.05"], { cwd, env: envFor() });
  expect(r.code).toBe(1);
  expect(JSON.parse(r.stdout)).toMatchObject({ subtype: "error_max_budget_usd", is_error: true, terminal_reason: "budget_exhausted" });
  expect(fake.requests.length - before).toBe(1);
  const bad = await runYoke(["-p", "hi", "--max-budget-usd", "lots"], { cwd, env: envFor() });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("--max-budget-usd");
});

test("--fallback-model: when the model stays overloaded, the run switches and carries on (contracts §4.1)", async () => {
  fake.push({ fault: 529 }, { fault: 529 }, { content: [{ type: "text", text: "answered by the fallback" }] });
  const before = fake.requests.length;
  const cwd = tempDir();
  const r = await runYoke(["-p", "hi", "--output-format", "stream-json", "--verbose", "--model", "opus", "--fallback-model", "haiku"], {
    cwd,
    env: envFor({ CLAUDE_CODE_MAX_RETRIES: "1" }),
  });
  expect(r.code).toBe(0);
  const models = fake.requests.slice(before).map((q) => q.body.model);
  expect(models).toEqual(["claude-opus-5-5", "claude-opus-5-5", "claude-haiku-5-5"]);
  const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  expect(lines.find((l) => l.subtype === "notification").message).toContain("fallback model claude-haiku-5-5");
  expect(lines.at(-1)).toMatchObject({ result: "answered by the fallback", is_error: false });
  const same = await runYoke(["-p", "hi", "--model", "haiku", "--fallback-model", "haiku"], { cwd, env: envFor() });
  expect(same.code).toBe(1);
  expect(same.stderr).toContain("must differ");
});

describe("--json-schema structured output (contracts §4.4)", () => {
  const schema = JSON.stringify({ type: "object", properties: { version: { type: "string" }, ok: { type: "boolean" } }, required: ["version", "ok"] });
  test("the model answers through StructuredOutput; the result carries structured_output; a bad call is corrected", async () => {
    fake.push(
      { content: [{ type: "text", text: "Done, version 2." }] },
      { content: [{ type: "tool_use", name: "StructuredOutput", input: { version: 2 } }] },
      { content: [{ type: "tool_use", name: "StructuredOutput", input: { version: "2.0.1", ok: true } }] },
      { content: [{ type: "text", text: "Reported." }] },
    );
    const before = fake.requests.length;
    const r = await runYoke(["-p", "what version?", "--output-format", "json", "--json-schema", schema], { cwd: tempDir(), env: envFor() });
    expect(r.code).toBe(0);
    const res = JSON.parse(r.stdout);
    expect(res).toMatchObject({ subtype: "success", is_error: false, structured_output: { version: "2.0.1", ok: true } });
    const reqs = fake.requests.slice(before);
    expect(reqs[0]!.body.tools.find((t: any) => t.name === "StructuredOutput").input_schema).toEqual(JSON.parse(schema));
    expect(JSON.stringify(reqs[1]!.body.messages.at(-1))).toContain("StructuredOutput");
    expect(toolResultsOf(reqs[2]!)[0]!.is_error).toBe(true);
  });
  test("a model that never calls it ends with error_max_structured_output_retries", async () => {
    for (let i = 0; i < 4; i++) fake.push({ content: [{ type: "text", text: `prose ${i}` }] });
    const r = await runYoke(["-p", "x", "--output-format", "json", "--json-schema", schema], { cwd: tempDir(), env: envFor() });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: "error_max_structured_output_retries", is_error: true });
  });
});
