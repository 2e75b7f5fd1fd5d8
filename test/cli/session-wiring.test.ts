// setupSession (contracts §5.3): how resume / fork flags turn into the starting conversation.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgv } from "../../src/cli/args.ts";
import { setupSession } from "../../src/cli/session-wiring.ts";
import { transcriptPath } from "../../src/session/store.ts";
import { assistant, jsonl, tempDir, tempEnv, user } from "../session/helpers.ts";

const SID = "11111111-2222-3333-4444-555555555555";

function seed(): { cwd: string; env: Record<string, string> } {
  const { env } = tempEnv();
  const cwd = tempDir();
  const path = transcriptPath(cwd, SID, env);
  mkdirSync(dirname(path), { recursive: true });
  const entries = [
    user("u1", null, "first prompt"),
    assistant("a1", "u1", "m1", [{ type: "text", text: "FIRST-REPLY" }]),
    user("u2", "a1", "second prompt"),
    assistant("a2", "u2", "m2", [{ type: "text", text: "SECOND-REPLY" }]),
  ].map((e) => ({ ...e, sessionId: SID }));
  writeFileSync(path, jsonl(entries));
  return { cwd, env: env as Record<string, string> };
}

const texts = (s: ReturnType<typeof setupSession>): string => JSON.stringify(s.messages);

describe("setupSession", () => {
  test("--resume ID --resume-session-at UUID truncates the chain at that entry (contracts §5.3)", () => {
    const { cwd, env } = seed();
    const s = setupSession(parseArgv(["-p", "x", "--resume", SID, "--resume-session-at", "a1"]), cwd, env);
    expect(s.sessionId).toBe(SID);
    expect(s.lastUuid).toBe("a1");
    expect(texts(s)).toContain("FIRST-REPLY");
    expect(texts(s)).not.toContain("SECOND-REPLY");
  });

  test("--fork-session with --resume-session-at forks the truncated chain into a new id (contracts §5.3)", () => {
    const { cwd, env } = seed();
    const s = setupSession(parseArgv(["-p", "x", "--resume", SID, "--fork-session", "--resume-session-at", "a1"]), cwd, env);
    expect(s.source).toBe("fork");
    expect(s.sessionId).not.toBe(SID);
    expect(texts(s)).toContain("FIRST-REPLY");
    expect(texts(s)).not.toContain("SECOND-REPLY");
    // the new file holds only the copied part of the chain, under fresh uuids
    const copied = readFileSync(transcriptPath(cwd, s.sessionId, env), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(copied.map((l) => l.requestSessionId)).toEqual([SID, SID]);
    expect(s.lastUuid).toBe(copied[1].uuid);
  });

  test("--fork-session without --resume is a usage error naming the flag", () => {
    const { cwd, env } = seed();
    expect(() => setupSession(parseArgv(["-p", "x", "--fork-session"]), cwd, env)).toThrow("--fork-session needs --resume or --continue");
  });

  test("--fork-session --session-id refuses an id that is already in use instead of overwriting its transcript", () => {
    const { cwd, env } = seed();
    const other = "99999999-2222-3333-4444-555555555555";
    const otherPath = transcriptPath(cwd, other, env);
    writeFileSync(otherPath, jsonl([{ ...user("x1", null, "keep me"), sessionId: other }]));
    const before = readFileSync(otherPath, "utf8");
    expect(() => setupSession(parseArgv(["-p", "x", "--resume", SID, "--fork-session", "--session-id", other]), cwd, env)).toThrow("already in use");
    expect(readFileSync(otherPath, "utf8")).toBe(before);
  });
});
