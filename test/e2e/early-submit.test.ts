// Issue 21: the first prompt's UserPromptSubmit hooks run while composing waits for the MCP servers, not after it.
// What the hooks see and what they do is unchanged: SessionStart precedes them (contracts §1.9), a hook reading
// transcript_path sees every line written before the prompt, and their block, context and prompt_id apply as before
// (contracts §1.4–1.7). Ordering is proven by barriers (an MCP server that answers only once a hook ran), never by time.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, yokeBin } from "../helpers/binary.ts";
import { adminBwrap } from "../helpers/managed.ts";
import { tempDir } from "../helpers/tmp.ts";
import { project, requestText, runWith, say, script } from "./hooks-helpers.ts";
import { toolNames } from "./mcp-helpers.ts";

setDefaultTimeout(90_000);

beforeAll(() => {
  yokeBin();
});

const cmd = (command: string) => [{ hooks: [{ type: "command", command }] }];
const probe = (log: string, gate?: string) => ({ command: "node", args: [join(repoRoot(), "test", "fixtures", "mcp", "probe-server.mjs"), log, ...(gate ? [gate] : [])] });

/**
 * A git project whose UserPromptSubmit hook copies the transcript as it finds it to seen-N.jsonl (N: the how-manieth
 * prompt), logs its payload to ups.log, then opens the gate file and prints `then` (a JSON answer, or nothing).
 */
function snapshotProject(o: { sessionStart?: string | null; then?: string; servers?: Record<string, unknown> } = {}): string {
  const cwd = project();
  const ups = script(
    cwd,
    "hooks/ups.sh",
    [
      "p=$(cat)",
      `t=$(printf '%s' "$p" | sed -n 's/.*"transcript_path":"\\([^"]*\\)".*/\\1/p')`,
      'n=$(ls "$CLAUDE_PROJECT_DIR"/seen-*.jsonl 2>/dev/null | wc -l)',
      'cp "$t" "$CLAUDE_PROJECT_DIR/seen-$n.jsonl" 2>/dev/null || : > "$CLAUDE_PROJECT_DIR/seen-$n.jsonl"',
      'printf \'%s\\n\' "$p" >> "$CLAUDE_PROJECT_DIR/ups.log"',
      'echo ups >> "$CLAUDE_PROJECT_DIR/order.txt"',
      'touch "$CLAUDE_PROJECT_DIR/gate"',
      o.then ? `echo '${o.then}'` : "",
    ].join("\n"),
  );
  const hooks: Record<string, unknown> = { UserPromptSubmit: cmd(ups) };
  if (o.sessionStart !== null) hooks.SessionStart = cmd(o.sessionStart ?? `echo ss >> order.txt; echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ss-context-3"}}'`);
  writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({ hooks }, null, 2));
  if (o.servers) {
    writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: o.servers }, null, 2));
    writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify({ enableAllProjectMcpServers: true }));
  }
  const git = (...a: string[]) => execFileSync("git", a, { cwd, stdio: "ignore", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" } });
  git("init", "-q", "-b", "main");
  git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "first");
  return cwd;
}

const upsPayloads = (cwd: string) => readFileSync(join(cwd, "ups.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
const fileLines = (p: string) => readFileSync(p, "utf8").split("\n").filter(Boolean);

/** The transcript's lines before the user line of the `nth` prompt (0-based) whose text is `prompt`. */
function linesBeforePrompt(transcript: string, prompt: string, nth = 0): string[] {
  const lines = fileLines(transcript);
  let seen = -1;
  const at = lines.findIndex((l) => {
    const e = JSON.parse(l);
    if (e.type !== "user" || !JSON.stringify(e.message?.content ?? "").includes(prompt)) return false;
    return ++seen === nth;
  });
  expect(at).toBeGreaterThan(0);
  return lines.slice(0, at);
}

describe("UserPromptSubmit runs while the MCP servers connect (issue 21)", () => {
  test("a slow MCP server waits on a barrier the UserPromptSubmit hook opens: the hook saw every line before the prompt, SessionStart's included", async () => {
    const cwd = snapshotProject({
      then: '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ups-context-5"}}',
      servers: { probe: probe(join(tempDir("yoke-early-probe-"), "starts.jsonl"), "gate") },
    });
    const r = await runWith(cwd, [say("ok")], ["--output-format", "json"], { prompt: "hello early", env: { MCP_TIMEOUT: "40000" } });
    expect(r.code).toBe(0);
    // Before: the hook ran only once the server was listed, so the server waited out its 15 s and listed no tools.
    expect(toolNames(r.requests[0]!)).toContain("mcp__probe__ping");
    const text = requestText(r.requests[0]!);
    expect(text).toContain("ss-context-3");
    expect(text).toContain("ups-context-5");
    expect(readFileSync(join(cwd, "order.txt"), "utf8")).toBe("ss\nups\n");
    const [p] = upsPayloads(cwd);
    const seen = fileLines(join(cwd, "seen-0.jsonl"));
    expect(seen).toEqual(linesBeforePrompt(p.transcript_path, "hello early"));
    // SessionStart's context line and the prompt's queue-operation lines, written with git's branch known.
    const entries = seen.map((l) => JSON.parse(l));
    const ssLine = entries.find((e) => e.type === "attachment" && e.attachment?.hookEvent === "SessionStart");
    expect(ssLine?.gitBranch).toBe("main");
    expect(entries.filter((e) => e.type === "queue-operation").map((e) => e.operation)).toEqual(["enqueue", "dequeue"]);
    // The hook's prompt_id is the turn's: the prompt's own line carries it.
    const promptLine = fileLines(p.transcript_path).map((l) => JSON.parse(l)).find((e) => e.type === "user");
    expect(p.prompt_id).toBeString();
    expect(promptLine.promptId).toBe(p.prompt_id);
    expect(r.json.session_id).toBe(p.session_id);
  });

  test("a block still ends the run before the model is asked, with the reason, whatever the MCP servers do", async () => {
    const cwd = snapshotProject({ then: '{"decision":"block","reason":"not today"}', servers: { probe: probe(join(tempDir("yoke-early-probe-"), "starts.jsonl"), "gate") } });
    const r = await runWith(cwd, [say("never sent")], ["--output-format", "json"], { prompt: "blocked prompt", env: { MCP_TIMEOUT: "40000" } });
    expect(r.requests).toHaveLength(0);
    expect(r.json.is_error).toBe(true);
    expect(r.json.result).toBe("Prompt blocked by a UserPromptSubmit hook: not today");
    const [p] = upsPayloads(cwd);
    const seen = fileLines(join(cwd, "seen-0.jsonl"));
    expect(fileLines(p.transcript_path).slice(0, seen.length)).toEqual(seen);
    expect(seen.map((l) => JSON.parse(l).type)).toContain("queue-operation");
  });

  test("an MCP server that fails to start: the hook still ran once, its context reached the request, the failure is said", async () => {
    const cwd = snapshotProject({
      then: '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ups-context-9"}}',
      servers: { broken: { command: "sh", args: ["-c", "exit 3"] } },
    });
    const r = await runWith(cwd, [say("ok")], ["--output-format", "json"], { prompt: "with a broken server" });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("broken");
    expect(requestText(r.requests[0]!)).toContain("ups-context-9");
    expect(upsPayloads(cwd)).toHaveLength(1);
    const [p] = upsPayloads(cwd);
    expect(fileLines(join(cwd, "seen-0.jsonl"))).toEqual(linesBeforePrompt(p.transcript_path, "with a broken server"));
  });

  test("--continue: the hook sees the earlier run's lines and this run's SessionStart lines", async () => {
    const cwd = snapshotProject();
    const first = await runWith(cwd, [say("first answer")], ["--output-format", "json"], { prompt: "first prompt" });
    expect(first.code).toBe(0);
    const keep = { HOME: first.env.HOME, YOKE_CONFIG_DIR: first.env.YOKE_CONFIG_DIR, CLAUDE_CONFIG_DIR: first.env.CLAUDE_CONFIG_DIR };
    const r = await runWith(cwd, [say("second answer")], ["--output-format", "json", "--continue"], { prompt: "second prompt", env: keep });
    expect(r.code).toBe(0);
    const payloads = upsPayloads(cwd);
    expect(payloads).toHaveLength(2);
    const seen = fileLines(join(cwd, "seen-1.jsonl"));
    expect(seen).toEqual(linesBeforePrompt(payloads[1].transcript_path, "second prompt"));
    expect(seen.some((l) => l.includes("first answer"))).toBe(true);
    expect(readFileSync(join(cwd, "order.txt"), "utf8")).toBe("ss\nups\nss\nups\n");
  });

  test("stream-json input with two prompts: each prompt's hook sees every line before that prompt", async () => {
    const cwd = snapshotProject();
    const user = (text: string) => JSON.stringify({ type: "user", message: { role: "user", content: text } });
    const r = await runWith(cwd, [say("one"), say("two")], ["--output-format", "stream-json", "--input-format", "stream-json", "--verbose"], {
      stdin: `${user("first streamed")}\n${user("second streamed")}\n`,
    });
    expect(r.code).toBe(0);
    expect(r.lines!.filter((l) => l.type === "result").map((l) => l.result)).toEqual(["one", "two"]);
    const payloads = upsPayloads(cwd);
    expect(payloads.map((p) => p.prompt)).toEqual(["first streamed", "second streamed"]);
    expect(fileLines(join(cwd, "seen-0.jsonl"))).toEqual(linesBeforePrompt(payloads[0].transcript_path, "first streamed"));
    expect(fileLines(join(cwd, "seen-1.jsonl"))).toEqual(linesBeforePrompt(payloads[1].transcript_path, "second streamed"));
  });

  test("prompts an MCP server may rewrite, and --include-hook-events, keep the hook after the servers: it sees the prompt the turn runs", async () => {
    for (const [prompt, args] of [
      ["read @probe:file:///x please", ["--output-format", "json"]],
      ["plain prompt", ["--output-format", "stream-json", "--verbose", "--include-hook-events"]],
    ] as const) {
      const cwd = snapshotProject({ servers: { probe: probe(join(tempDir("yoke-early-probe-"), "starts.jsonl")) } });
      const r = await runWith(cwd, [say("ok")], [...args], { prompt, env: { MCP_TIMEOUT: "40000" } });
      expect(r.code).toBe(0);
      expect(upsPayloads(cwd).map((p) => p.prompt)).toEqual([prompt]);
      if (r.lines) {
        // contracts §4.3: the hook's lines come after system/init.
        const kinds = r.lines.map((l) => `${l.type}/${l.subtype ?? ""}/${l.hook_event ?? ""}`);
        expect(kinds.indexOf("system/init/")).toBeLessThan(kinds.indexOf("system/hook_started/UserPromptSubmit"));
      }
    }
  });

  test("no SessionStart hook: the prompt's own lines are there, and the run ends before its prompt when there is none", async () => {
    const cwd = snapshotProject({ sessionStart: null });
    const r = await runWith(cwd, [say("ok")], [], { prompt: "", stdin: "" });
    expect(r.code).toBe(1);
    expect(existsSync(join(cwd, "ups.log"))).toBe(false);
    const r2 = await runWith(cwd, [say("ok")], [], { prompt: "now a prompt" });
    expect(r2.code).toBe(0);
    const [p] = upsPayloads(cwd);
    expect(fileLines(join(cwd, "seen-0.jsonl"))).toEqual(linesBeforePrompt(p.transcript_path, "now a prompt"));
    expect(readdirSync(cwd).filter((f) => f.startsWith("seen-"))).toEqual(["seen-0.jsonl"]);
  });

  test("SessionStart and InstructionsLoaded precede UserPromptSubmit (contracts §1.9), on the early path and off it", async () => {
    for (const args of [[], ["--output-format", "stream-json", "--verbose", "--include-hook-events"]]) {
      const cwd = snapshotProject({ servers: { probe: probe(join(tempDir("yoke-early-probe-"), "starts.jsonl"), "gate") } });
      writeFileSync(join(cwd, "CLAUDE.md"), "Project rule: tabs.\n");
      const settings = JSON.parse(readFileSync(join(cwd, ".claude", "settings.json"), "utf8"));
      settings.hooks.InstructionsLoaded = cmd("echo il >> order.txt");
      writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify(settings));
      const r = await runWith(cwd, [say("ok")], args, { prompt: "ordered", env: { MCP_TIMEOUT: "40000" } });
      expect(r.code).toBe(0);
      expect(readFileSync(join(cwd, "order.txt"), "utf8")).toBe("ss\nil\nups\n");
      expect(requestText(r.requests[0]!)).toContain("Project rule: tabs.");
    }
  });

  test("a required sandbox that cannot start refuses the run before the UserPromptSubmit hook runs (YOKE_SANDBOX=1)", async () => {
    const cwd = snapshotProject();
    // A bubblewrap that fails only once the UserPromptSubmit hook opened the gate: were the hook not held until the
    // sandbox's answer, it would run and open it; held, the probe gives up after its 10 s and the run is refused.
    const bwrap = script(cwd, "fake-bwrap.sh", `while [ ! -e "${join(cwd, "gate")}" ]; do sleep 0.05; done\necho "no namespaces here" >&2\nexit 1`);
    // bwrapPath is read from managed settings only (as in Claude Code 2.1.332).
    const r = await runWith(cwd, [say("never sent")], [], { prompt: "refused prompt", env: { ...adminBwrap(bwrap), YOKE_SANDBOX: "1" }, timeoutMs: 60_000 });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("cannot start");
    expect(r.requests).toHaveLength(0);
    expect(existsSync(join(cwd, "ups.log"))).toBe(false);
  });
});
