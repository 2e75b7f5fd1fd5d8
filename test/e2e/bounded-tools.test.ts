/**
 * Issue 20 point 5: every tool call ends and every child's output is bounded, through the compiled binary.
 * One test per class that can fail: a tool that hangs ends at its timeout as an is_error result and the run goes on;
 * a command that streams forever is cut at its cap with the cut said; a hook that streams forever and never ends is
 * stopped at its timeout and the run goes on. (MCP: test/e2e/mcp.test.ts, a server whose tools/call never answers.)
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke, yokeBin } from "../helpers/binary.ts";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { tempDir } from "../helpers/tmp.ts";

let fake: FakeAnthropic;
beforeAll(async () => {
  yokeBin();
  fake = await startFakeAnthropic();
});
afterAll(() => fake.stop());

/** The tool_result the model got back in the request after the call. */
const resultIn = (req: { body: any }) => {
  const last = req.body.messages.at(-1);
  return last.content.find((b: any) => b.type === "tool_result");
};

test("a tool that hangs (WebFetch of a server that never answers) ends at YOKE_TOOL_TIMEOUT_MS as is_error; the run goes on", async () => {
  const hung = Bun.serve({ port: 0, fetch: () => new Promise<Response>(() => {}) });
  try {
    const cwd = tempDir();
    const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_TOOL_TIMEOUT_MS: "700" });
    const n = fake.requests.length;
    fake.push(
      { content: [{ type: "tool_use", name: "WebFetch", input: { url: `http://127.0.0.1:${hung.port}/x`, prompt: "what?" } }] },
      { content: [{ type: "text", text: "went on" }] },
    );
    const r = await runYoke(["-p", "go", "--allowedTools", "WebFetch", "--output-format", "json"], { cwd, env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe("went on");
    const tr = resultIn(fake.requests[n + 1]!);
    expect(tr.is_error).toBe(true);
    expect(JSON.stringify(tr.content)).toContain("WebFetch did not finish within 700 ms (YOKE_TOOL_TIMEOUT_MS) and was stopped.");
  } finally {
    hung.stop(true);
  }
});

test("a command that streams forever is cut: timeout said, output cut with the omitted bytes said, spill file capped", async () => {
  const cwd = tempDir();
  const tmp = tempDir();
  const env = isolatedEnv({ ...fakeApiEnv(fake), TMPDIR: tmp, YOKE_SPILL_MAX_BYTES: "1048576" });
  const n = fake.requests.length;
  fake.push(
    { content: [{ type: "tool_use", name: "Bash", input: { command: "yes", timeout: 1500 } }] },
    { content: [{ type: "text", text: "went on" }] },
  );
  const r = await runYoke(["-p", "go", "--allowedTools", "Bash", "--output-format", "json"], { cwd, env });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).result).toBe("went on");
  const tr = resultIn(fake.requests[n + 1]!);
  const text = typeof tr.content === "string" ? tr.content : tr.content.map((b: { text: string }) => b.text).join("");
  // Booleans, not matchers on the text: a failure must not print 30,000 characters of "y".
  expect(tr.is_error).toBe(true);
  expect(text.startsWith('Command timed out after 1.5s and its process group was killed.')).toBe(true);
  expect(/the first \d+ bytes were cut to cap the file/.test(text)).toBe(true);
  expect(text.length <= 30_500).toBe(true); // BASH_MAX_OUTPUT_LENGTH, plus the timeout line
});

test("a hook that streams forever and never exits is stopped at its timeout, its output capped; the run goes on", async () => {
  const cwd = tempDir();
  const settings = join(cwd, "settings.json");
  writeFileSync(settings, JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "yes", timeout: 1 }] }] } }));
  const env = isolatedEnv(fakeApiEnv(fake));
  const n = fake.requests.length;
  fake.push({ content: [{ type: "tool_use", name: "Bash", input: { command: "echo hi" } }] }, { content: [{ type: "text", text: "went on" }] });
  const r = await runYoke(["-p", "go", "--allowedTools", "Bash", "--settings", settings, "--output-format", "json"], { cwd, env });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).result).toBe("went on");
  expect(JSON.stringify(resultIn(fake.requests[n + 1]!).content)).toContain("hi");
});

test("hostile files through the binary: a FIFO in the project and /dev/zero are refused or skipped, nothing hangs", async () => {
  const { mkdirSync } = await import("node:fs");
  const cwd = tempDir();
  mkdirSync(join(cwd, "src"));
  writeFileSync(join(cwd, "src", "a.txt"), "needle here\n");
  Bun.spawnSync(["mkfifo", join(cwd, "src", "pipe")]);
  const env = isolatedEnv(fakeApiEnv(fake));
  const n = fake.requests.length;
  const calls = [
    { name: "Grep", input: { pattern: "needle", output_mode: "content" } },
    { name: "Grep", input: { pattern: "needle", path: join(cwd, "src", "pipe") } },
    { name: "Grep", input: { pattern: "x", path: "/dev/zero" } },
    { name: "Read", input: { file_path: "/dev/zero" } },
    { name: "Read", input: { file_path: join(cwd, "src", "pipe") } },
    { name: "Glob", input: { pattern: "**/*", path: cwd } },
  ];
  fake.push(...calls.map((c) => ({ content: [{ type: "tool_use" as const, ...c }] })), { content: [{ type: "text", text: "went on" }] });
  const r = await runYoke(["-p", "go", "--allowedTools", "Grep,Read,Glob", "--output-format", "json"], { cwd, env });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).result).toBe("went on");
  const results = calls.map((_, i) => resultIn(fake.requests[n + 1 + i]!));
  const text = (tr: any) => (typeof tr.content === "string" ? tr.content : JSON.stringify(tr.content));
  expect(text(results[0])).toContain("needle here");
  for (const i of [1, 2, 3, 4]) {
    expect(results[i].is_error).toBe(true);
    expect(text(results[i])).toMatch(/FIFO|device|not a regular file/i);
  }
  expect(text(results[5])).toContain("a.txt");
}, 60_000);

// Issue 20.5, background shells: with no timeout one runs until TaskStop or the end of the session, as in Claude
// Code. While it floods, yoke's memory holds at most UNREAD_CAP_CHARS of it per stream and its .output file stays
// under YOKE_SPILL_MAX_BYTES; when the run ends normally the group is killed and the file removed with the folder.
test("a background shell with no timeout that floods output: read capped, file capped, killed and removed when the run ends", async () => {
  const cwd = tempDir();
  const tmp = tempDir();
  const pidFile = join(cwd, "bg.pid");
  const env = isolatedEnv({ ...fakeApiEnv(fake), TMPDIR: tmp, YOKE_SPILL_MAX_BYTES: "1048576" });
  const n = fake.requests.length;
  // The barrier: a foreground command that returns once the flood's file has been cut at its cap at least once.
  const waitCut = `f=$(ls "${tmp}"/yoke-*/bash_1.output); until head -c 100 "$f" | grep -q "were cut to keep the file"; do sleep 0.05; done; wc -c < "$f"`;
  fake.push(
    { content: [{ type: "tool_use", name: "Bash", input: { command: `echo $$ > ${pidFile}; exec yes flood`, run_in_background: true } }] },
    { content: [{ type: "tool_use", name: "Bash", input: { command: waitCut, timeout: 120_000 } }] },
    { content: [{ type: "tool_use", name: "BashOutput", input: { bash_id: "bash_1" } }] },
    { content: [{ type: "text", text: "went on" }] },
  );
  const r = await runYoke(["-p", "go", "--allowedTools", "Bash,BashOutput", "--output-format", "json"], { cwd, env, timeoutMs: 100_000 });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).result).toBe("went on");
  const text = (tr: any) => (typeof tr.content === "string" ? tr.content : tr.content.map((b: { text: string }) => b.text).join(""));
  const size = Number(text(resultIn(fake.requests[n + 2]!)).trim());
  // At most its cap plus its first line at any moment: the cut comes before a write that would pass it (a reader
  // looking between a write and a cut once saw a MiB more, under load). Unbounded, `yes` fills it by hundreds of MiB.
  expect(Number.isFinite(size) ? "a size" : text(resultIn(fake.requests[n + 2]!))).toBe("a size");
  expect(size).toBeGreaterThan(0);
  expect(size).toBeLessThanOrEqual(1_048_576 + 200);
  const read = text(resultIn(fake.requests[n + 3]!));
  expect(/\[\d+ earlier characters were not kept in memory/.test(read)).toBe(true);
  expect(read.length <= 200_000).toBe(true); // what BashOutput hands back is cut too
  // Killed at the end of the run, and its folder (with the .output file) removed.
  const pid = Number(readFileSync(pidFile, "utf8"));
  const alive = () => {
    try {
      process.kill(pid, 0);
      return !/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      return false;
    }
  };
  expect(alive()).toBe(false);
  expect(readdirSync(tmp).filter((f) => f.startsWith("yoke-"))).toEqual([]);
}, 120_000);

test("huge files through the binary: Edit of a sparse 2 GiB file is refused naming it and its size; Grep pages 300,000 matches", async () => {
  const { closeSync, openSync, truncateSync } = await import("node:fs");
  const cwd = tempDir();
  const huge = join(cwd, "huge.log");
  closeSync(openSync(huge, "w"));
  truncateSync(huge, 2 * 1024 * 1024 * 1024);
  writeFileSync(join(cwd, "many.txt"), "hit\n".repeat(300_000));
  const env = isolatedEnv(fakeApiEnv(fake));
  const n = fake.requests.length;
  fake.push(
    { content: [{ type: "tool_use", name: "Edit", input: { file_path: huge, old_string: "a", new_string: "b" } }] },
    { content: [{ type: "tool_use", name: "Grep", input: { pattern: "hit", output_mode: "content", head_limit: 2, offset: 299_990 } }] },
    { content: [{ type: "text", text: "went on" }] },
  );
  const r = await runYoke(["-p", "go", "--allowedTools", "Edit,Grep", "--output-format", "json"], { cwd, env, timeoutMs: 60_000 });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).result).toBe("went on");
  const text = (tr: any) => (typeof tr.content === "string" ? tr.content : tr.content.map((b: { text: string }) => b.text).join(""));
  const edit = resultIn(fake.requests[n + 1]!);
  expect(edit.is_error).toBe(true);
  expect(text(edit)).toContain(`File is too large to edit: ${huge} is 2GB (2147483648 bytes). Maximum editable file size is 256MB (YOKE_EDIT_MAX_BYTES).`);
  // Past the 200,000 entries Grep keeps, the model is told to narrow the search rather than yoke holding them all.
  expect(text(resultIn(fake.requests[n + 2]!))).toBe(
    "Grep pages through the first 200000 of its 300000 results only. Narrow the search (a more specific pattern, path, glob or type) to reach the rest.",
  );
}, 90_000);
