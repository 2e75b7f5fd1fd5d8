import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { findSession, formatSessionList, formatSessionShow, latestSession, listSessions } from "../../src/session/list.ts";
import { forkSession, rewindConversation } from "../../src/session/fork.ts";
import { subagentTranscriptPath, transcriptPath } from "../../src/session/store.ts";
import { conversationFromEntries, loadTranscript } from "../../src/session/load.ts";
import { assistant, jsonl, tempEnv, user } from "./helpers.ts";
import type { SessionEntry } from "../../src/session/types.ts";

type Env = Record<string, string | undefined>;
const put = (env: Env, cwd: string, id: string, entries: Array<SessionEntry | Record<string, unknown>>, mtimeSec: number): string => {
  const p = transcriptPath(cwd, id, env);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, jsonl(entries));
  utimesSync(p, mtimeSec, mtimeSec);
  return p;
};

const convo = (sid: string, prompt: string): SessionEntry[] =>
  [
    user("u1", null, prompt),
    assistant("a1", "u1", "m1", [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: "/p/a.ts" } }]),
    user("u2", "a1", [{ type: "tool_result", tool_use_id: "t1", content: "x" }]),
    assistant("a2", "u2", "m2", [{ type: "text", text: "done" }]),
    user("u3", "a2", "thanks"),
  ].map((e) => ({ ...e, sessionId: sid }));

describe("listing (contracts §5.3)", () => {
  test("lists newest first with first prompt and real-prompt turn count", () => {
    const { env } = tempEnv();
    put(env, "/proj", "aaaa-old", convo("aaaa-old", "first   session\nprompt"), 1_000_000);
    put(env, "/proj", "bbbb-new", [{ type: "custom-title", customTitle: "Named" }, ...convo("bbbb-new", "second")], 2_000_000);
    put(env, "/other", "cccc-else", convo("cccc-else", "elsewhere"), 3_000_000);
    const rows = listSessions("/proj", env);
    expect(rows.map((r) => r.id)).toEqual(["bbbb-new", "aaaa-old"]);
    expect(rows[1]).toMatchObject({ firstPrompt: "first session prompt", turns: 2, entrypoint: "cli" });
    expect(rows[0]!.title).toBe("Named");
    expect(rows[1]!.size).toBeGreaterThan(100);
    expect(latestSession("/proj", env)?.id).toBe("bbbb-new");
    expect(latestSession("/proj", env, (r) => r.id.startsWith("a"))?.id).toBe("aaaa-old");
    expect(latestSession("/empty", env)).toBeNull();
    const table = formatSessionList(rows);
    expect(table).toContain("bbbb-new");
    expect(table).toContain("Named");
    expect(table.indexOf("bbbb-new")).toBeLessThan(table.indexOf("aaaa-old"));
  });

  test("findSession: exact id, unique prefix, other projects, ambiguity and absence", () => {
    const { env } = tempEnv();
    const a = put(env, "/proj", "abc-111", convo("abc-111", "x"), 1);
    put(env, "/proj", "abc-222", convo("abc-222", "x"), 1);
    const c = put(env, "/other", "zzz-333", convo("zzz-333", "x"), 1);
    expect(findSession("abc-111", "/proj", env)).toEqual({ ok: true, id: "abc-111", path: a });
    expect(findSession("abc-1", "/proj", env)).toEqual({ ok: true, id: "abc-111", path: a });
    expect(findSession("zzz", "/proj", env)).toEqual({ ok: true, id: "zzz-333", path: c });
    const amb = findSession("abc", "/proj", env);
    expect(amb.ok).toBe(false);
    expect(!amb.ok && amb.error).toContain("ambiguous");
    expect(findSession("nope", "/proj", env).ok).toBe(false);
    expect(findSession("../x", "/proj", env).ok).toBe(false);
  });

  test("formatSessionShow renders prompts, tool calls and results readably", () => {
    const out = formatSessionShow(convo("s", "hello there"));
    expect(out).toContain("user] hello there");
    expect(out).toContain('→ Read {"file_path":"/p/a.ts"}');
    expect(out).toContain("tool] ← x");
    expect(out).toContain("assistant] done");
  });
  test("formatSessionShow summarises injected context instead of printing it", () => {
    const entries = convo("s", "hello there");
    const first = entries.find((e) => e.type === "user")!;
    (first.message as { content: unknown }).content = [
      { type: "text", text: "<system-reminder>\nContents of CLAUDE.md: lots of rules\n</system-reminder>" },
      { type: "text", text: "the real prompt" },
    ];
    const out = formatSessionShow(entries);
    expect(out).not.toContain("lots of rules");
    expect(out).toMatch(/\(context: \d+ characters\)\nthe real prompt/);
  });
});

describe("fork and conversation rewind (contracts §5.3)", () => {
  test("fork copies the active chain with new uuids, remapped parents and requestSessionId", () => {
    const { env } = tempEnv();
    const src = put(env, "/proj", "orig", convo("orig", "go"), 1);
    const before = readFileSync(src, "utf8");
    const dest = forkSession(src, "new-id", "/proj", env);
    expect(dest).toBe(transcriptPath("/proj", "new-id", env));
    expect(readFileSync(src, "utf8")).toBe(before);
    const { entries, warnings } = loadTranscript(dest);
    expect(warnings).toEqual([]);
    expect(entries.length).toBe(5);
    const old = new Set(["u1", "a1", "u2", "a2", "u3"]);
    for (const e of entries) {
      expect(old.has(e.uuid)).toBe(false);
      expect(e.sessionId).toBe("new-id");
      expect((e as Record<string, unknown>).requestSessionId).toBe("orig");
    }
    for (let i = 1; i < entries.length; i++) expect(entries[i]!.parentUuid).toBe(entries[i - 1]!.uuid);
    expect(entries[0]!.parentUuid).toBeNull();
    const a = conversationFromEntries(loadTranscript(src).entries).messages;
    const b = conversationFromEntries(entries).messages;
    expect(b).toEqual(a);
  });

  test("fork at a leaf copies only up to it", () => {
    const { env } = tempEnv();
    const src = put(env, "/proj", "orig", convo("orig", "go"), 1);
    const dest = forkSession(src, "f2", "/proj", env, { leafUuid: "a1" });
    expect(loadTranscript(dest).entries.length).toBe(2);
  });

  test("rewindConversation gives the leaf before a user message without touching the file", () => {
    const { env } = tempEnv();
    const src = put(env, "/proj", "orig", convo("orig", "go"), 1);
    const before = readFileSync(src, "utf8");
    expect(rewindConversation(src, "u3")).toEqual({ ok: true, leafUuid: "a2" });
    expect(rewindConversation(src, "u1")).toEqual({ ok: true, leafUuid: null });
    expect(rewindConversation(src, "a1").ok).toBe(false);
    expect(rewindConversation(src, "zz").ok).toBe(false);
    expect(readFileSync(src, "utf8")).toBe(before);
    const c = conversationFromEntries(loadTranscript(src).entries, { leafUuid: "a2" });
    expect(c.messages.length).toBe(4);
  });
});

test("findSession searches the given worktrees before other projects (contracts §5.3)", () => {
  const { env } = tempEnv();
  put(env, "/zz-other", "dup-1", convo("dup-1", "x"), 1);
  const wt = put(env, "/proj-wt", "dup-2", convo("dup-2", "x"), 1);
  expect(findSession("dup", "/proj", env, { worktrees: ["/proj-wt"] })).toEqual({ ok: true, id: "dup-2", path: wt });
});

test("subagent transcripts live under <session-id>/subagents/ (contracts §5.1)", () => {
  const { env } = tempEnv();
  expect(subagentTranscriptPath("/p", "sid", "a1b2", env)).toBe(join(env.YOKE_CONFIG_DIR!, "projects", "-p", "sid", "subagents", "agent-a1b2.jsonl"));
});
