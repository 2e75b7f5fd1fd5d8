// Issue 8 points 3 and 5 end to end: session notes and their use by compaction in the compiled binary.
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { NOTES_MARKER } from "../../plugins/session-memory/index.ts";
import { fakeApiEnv, toolResultsOf, type LoggedRequest } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";
import { jsonLines as lines, sanitize, systemText, transcript, userText } from "./memory-helpers.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";

const fake = useFakeAnthropic();

describe("session memory (issue 8 point 3)", () => {
  test("past the token threshold the notes fork fills summary.md beside the transcript, headings intact", async () => {
    const cwd = tempDir();
    const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_SESSION_MEMORY: "1" });
    const forkReqs: LoggedRequest[] = [];
    fake.push(
      { content: [{ type: "text", text: "The parser is fixed." }], usage: { input_tokens: 12_000 } },
      (req) => {
        forkReqs.push(req);
        if (!systemText(req).startsWith(NOTES_MARKER)) throw new Error("expected the session-notes fork");
        return {
          content: [
            {
              type: "tool_use",
              name: "SaveSessionNotes",
              input: {
                updates: [
                  { section: "Current State", content: "Parser fix done; next: run the full test suite." },
                  { section: "Task", content: "Fix the off-by-one in parse()." },
                ],
              },
            },
          ],
        };
      },
      (req) => {
        forkReqs.push(req);
        return { content: [{ type: "text", text: "done" }] };
      },
    );
    const r = await runYoke(["-p", "fix the off-by-one in parse()", "--output-format", "json"], { cwd, env });
    expect(r.code).toBe(0);
    expect(fake.unexpected).toBe(0);
    const sid = JSON.parse(r.stdout).session_id;
    expect(forkReqs).toHaveLength(2);
    expect(forkReqs[0]!.body.tools.map((t: any) => t.name)).toEqual(["SaveSessionNotes"]);
    expect(userText(forkReqs[0]!.body.messages[0])).toContain("fix the off-by-one in parse()");
    expect(toolResultsOf(forkReqs[1]!)[0]!.is_error).toBe(false);
    const path = join(env.YOKE_CONFIG_DIR!, "projects", sanitize(cwd), sid, "session-memory", "summary.md");
    const notes = readFileSync(path, "utf8");
    expect(notes).toContain("# Current State\n_");
    expect(notes).toContain("Parser fix done; next: run the full test suite.");
    expect(notes).toContain("# Errors and Corrections");
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test("a failing notes fork costs neither the answer nor the transcript", async () => {
    const cwd = tempDir();
    const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_SESSION_MEMORY: "1" });
    fake.push({ content: [{ type: "text", text: "Answer kept." }], usage: { input_tokens: 20_000 } }, { fault: 400, message: "notes request refused" });
    const r = await runYoke(["-p", "do the thing"], { cwd, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Answer kept.\n");
    expect(r.stderr).toContain("[plugin session-memory]");
    expect(fake.unexpected).toBe(0);
    const t = transcript(env, cwd).filter((l) => (l.type === "user" || l.type === "assistant") && !l.isSidechain);
    expect(t.map((l) => l.type)).toEqual(["user", "assistant"]);
  });

  test("below the threshold nothing runs", async () => {
    const cwd = tempDir();
    const start = fake.requests.length;
    fake.push({ content: [{ type: "text", text: "small" }], usage: { input_tokens: 500 } });
    const r = await runYoke(["-p", "hi there"], { cwd, env: isolatedEnv({ ...fakeApiEnv(fake), YOKE_SESSION_MEMORY: "1" }) });
    expect(r.code).toBe(0);
    expect(fake.unexpected).toBe(0);
    expect(fake.requests.length - start).toBe(1);
  });
});

describe("session memory in compaction (issue 8 point 5)", () => {
  test("/compact uses the session notes instead of a summarizing call and keeps the uncovered messages verbatim", async () => {
    const cwd = tempDir();
    const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_SESSION_MEMORY: "1" });
    // Over the 40K-token window of kept messages, so the notes replace it rather than it being kept.
    const huge = "HUGE-EARLY-OUTPUT ".repeat(11_000);
    let mains = 0;
    let notes = 0;
    const router = (req: LoggedRequest) => {
      if (systemText(req).startsWith(NOTES_MARKER)) {
        notes++;
        if (notes === 1)
          return { content: [{ type: "tool_use" as const, name: "SaveSessionNotes", input: { updates: [{ section: "Current State", content: "NOTES-STATE: parser rewritten, tests next" }] } }] };
        return { content: [{ type: "text" as const, text: "done" }] };
      }
      mains++;
      if (mains === 1) return { content: [{ type: "text" as const, text: `DONE-1 ${huge}` }], usage: { input_tokens: 12_000 } };
      return { content: [{ type: "text" as const, text: `DONE-${mains}` }], usage: { input_tokens: 500 } };
    };
    const start = fake.requests.length;
    fake.push(...Array.from({ length: 5 }, () => router));
    const prompts = ["TASK-PROMPT rewrite the parser", "SECOND-PROMPT how is it going", "/compact", "AFTER-PROMPT carry on"];
    const stdin = prompts.map((t) => JSON.stringify({ type: "user", message: { role: "user", content: t } })).join("\n") + "\n";
    const r = await runYoke(["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"], { cwd, env, stdin });
    expect(r.code).toBe(0);
    expect(notes).toBe(2);
    expect(mains).toBe(3); // three turns, and no summarizing model call for /compact
    const reqs = fake.requests.slice(start).filter((q) => !systemText(q).startsWith(NOTES_MARKER));
    const after = reqs.at(-1)!.body;
    const all = after.messages.map(userText).join("\n");
    expect(userText(after.messages[0])).toContain("NOTES-STATE: parser rewritten, tests next");
    expect(all).not.toContain("HUGE-EARLY-OUTPUT");
    expect(all).toContain("SECOND-PROMPT how is it going");
    expect(all).toContain("DONE-2");
    expect(all).toContain("AFTER-PROMPT carry on");
    expect(fake.pending).toBe(0);
    expect(fake.unexpected).toBe(0);
  });
});

describe("session memory in auto-compaction after a resume (issue 8 point 5)", () => {
  test("a resumed long session compacts automatically from the notes saved by the earlier process", async () => {
    const cwd = tempDir();
    const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_SESSION_MEMORY: "1" });
    const huge = "HUGE-EARLY-OUTPUT ".repeat(11_000);
    const notesReqs: LoggedRequest[] = [];
    fake.push(
      { content: [{ type: "text", text: `DONE-1 ${huge}` }], usage: { input_tokens: 12_000 } },
      (req) => {
        notesReqs.push(req);
        return { content: [{ type: "tool_use", name: "SaveSessionNotes", input: { updates: [{ section: "Current State", content: "NOTES-STATE: schema migrated, API next" }] } }] };
      },
      (req) => {
        notesReqs.push(req);
        return { content: [{ type: "text", text: "done" }] };
      },
    );
    const a = await runYoke(["-p", "TASK-PROMPT migrate the schema", "--output-format", "json"], { cwd, env });
    expect(a.code).toBe(0);
    expect(notesReqs.every((q) => systemText(q).startsWith(NOTES_MARKER))).toBe(true);
    const id = JSON.parse(a.stdout).session_id as string;
    // A new process resumes the session with a low auto-compaction threshold: the first request compacts.
    const start = fake.requests.length;
    fake.push({ content: [{ type: "text", text: "DONE-2" }], usage: { input_tokens: 500 } });
    const b = await runYoke(["-p", "SECOND-PROMPT now the API", "--resume", id, "--output-format", "stream-json", "--verbose"], {
      cwd,
      // The window is pinned at 200K: 20% of it is below this session, whatever the model's own window.
      env: { ...env, CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "20", CLAUDE_CODE_AUTO_COMPACT_WINDOW: "200000" },
    });
    expect(b.code).toBe(0);
    expect(fake.unexpected).toBe(0);
    const out = lines(b.stdout);
    expect(out.find((l) => l.subtype === "compact_boundary")?.compact_metadata?.trigger).toBe("auto");
    expect(out.at(-1)).toMatchObject({ type: "result", result: "DONE-2" });
    const reqs = fake.requests.slice(start);
    expect(reqs).toHaveLength(1); // no summarizing call: the notes were the summary
    const all = reqs[0]!.body.messages.map(userText).join("\n");
    expect(userText(reqs[0]!.body.messages[0])).toContain("NOTES-STATE: schema migrated, API next");
    expect(all).not.toContain("HUGE-EARLY-OUTPUT");
    expect(all).toContain("SECOND-PROMPT now the API");
  });
});
