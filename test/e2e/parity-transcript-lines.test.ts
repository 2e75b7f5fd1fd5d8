// Issue 17 point 9: the transcript line types besides user/assistant that Claude Code 2.1.332 writes in a headless
// run, key for key (observed in 2.1.332 against the fake API; roundtrip-transcript-shape.txt, contracts §1.9, §5.2):
// queue-operation, last-prompt (the Agent SDK's listSessions summary reads it), system/stop_hook_summary and the
// system/informational warning when Stop hooks hit the block cap.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { yokeBin } from "../helpers/binary.ts";
import { hook, hooksProject, runWith, say, script } from "./hooks-helpers.ts";

// Each test runs the compiled binary (some several times): seconds apiece on a loaded 2-core machine.

beforeAll(() => void yokeBin());

function sessionLines(env: Record<string, string>, id: string): any[] {
  const projects = join(env.YOKE_CONFIG_DIR!, "projects");
  for (const d of readdirSync(projects)) {
    const p = join(projects, d, `${id}.jsonl`);
    if (existsSync(p)) return readFileSync(p, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  }
  throw new Error(`no transcript for ${id} under ${projects}`);
}
const keys = (l: any) => Object.keys(l).join(", ");
const COMMON = "userType, entrypoint, cwd, sessionId, version";

describe("other transcript line types (issue 17.9, observed in 2.1.332)", () => {
  test("queue-operation and last-prompt around each prompt; last-prompt names the last line of the chain", async () => {
    const cwd = hooksProject({});
    const r = await runWith(cwd, [say("hello back")], ["--output-format", "json"], { prompt: "say hello" });
    expect(r.code).toBe(0);
    const lines = sessionLines(r.env, r.json.session_id);
    const queue = lines.filter((l) => l.type === "queue-operation");
    expect(queue.map(keys)).toEqual(["type, operation, timestamp, sessionId, content", "type, operation, timestamp, sessionId"]);
    expect(queue.map((q) => q.operation)).toEqual(["enqueue", "dequeue"]);
    expect(queue[0].content).toBe("say hello");
    expect(lines.indexOf(queue[1])).toBeLessThan(lines.findIndex((l) => l.type === "user"));
    const last = lines.filter((l) => l.type === "last-prompt");
    expect(last.map(keys)).toEqual(["type, lastPrompt, leafUuid, sessionId"]);
    expect(last[0]).toMatchObject({ lastPrompt: "say hello", sessionId: r.json.session_id });
    expect(last[0].leafUuid).toBe(lines.filter((l) => l.uuid).at(-1).uuid);
  });

  test("system/stop_hook_summary after Stop hooks run: which ran, how long, the blocks they made", async () => {
    const cwd = hooksProject({});
    const guard = script(cwd, "stop.sh", `if grep -q '"stop_hook_active":true'; then exit 0; fi; echo "more please" >&2; exit 2`);
    const note = script(cwd, "note.sh", `cat >/dev/null; echo '{"systemMessage":"hi user"}'`);
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: guard }, { type: "command", command: note }] }] } }));
    const r = await runWith(cwd, [say("first"), say("second")], ["--output-format", "json"]);
    expect(r.code).toBe(0);
    const sums = sessionLines(r.env, r.json.session_id).filter((l) => l.type === "system" && l.subtype === "stop_hook_summary");
    expect(sums).toHaveLength(2);
    expect(keys(sums[0])).toBe(
      `parentUuid, isSidechain, type, subtype, hookCount, hookInfos, hookErrors, failedHookErrorIndexes, hookAdditionalContext, preventedContinuation, stopReason, hasOutput, level, timestamp, uuid, toolUseID, ${COMMON}`,
    );
    expect(sums[0]).toMatchObject({ hookCount: 2, hookErrors: [`[${guard}]: more please\n`], preventedContinuation: false, stopReason: "", hasOutput: true, level: "suggestion" });
    expect(sums[0].hookInfos.map((h: any) => h.command).sort()).toEqual([guard, note].sort());
    // Observed in 2.1.332: the summary of a block lists commands only, the one of a run that let the turn end adds durations.
    for (const h of sums[0].hookInfos) expect(h.durationMs).toBeUndefined();
    for (const h of sums[1].hookInfos) expect(typeof h.durationMs).toBe("number");
    expect(sums[1].hookErrors).toEqual([]);
  });

  test("Stop hooks past the block cap: the warning on stderr and as a system/informational line (level warning)", async () => {
    const cwd = hooksProject(hook("Stop", `bash -c 'cat >/dev/null; echo "keep going" >&2; exit 2'`));
    const r = await runWith(cwd, [say("a"), say("b"), say("c")], ["--output-format", "json"], { env: { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: "1" } });
    expect(r.code).toBe(0);
    const text =
      "A hook blocked the turn from ending 2 consecutive times—overriding and ending turn. For Stop/SubagentStop hooks, check stop_hook_active in the input and return success while it's true. Set CLAUDE_CODE_STOP_HOOK_BLOCK_CAP to raise this limit.";
    expect(r.stderr).toContain(text);
    const warn = sessionLines(r.env, r.json.session_id).find((l) => l.type === "system" && l.subtype === "informational");
    expect(warn).toMatchObject({ content: text, isMeta: false, level: "warning" });
    expect(keys(warn)).toBe(`parentUuid, isSidechain, type, subtype, content, isMeta, timestamp, uuid, level, ${COMMON}`);
  });
});
