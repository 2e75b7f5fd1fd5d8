import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSessionStore, transcriptPath } from "../../src/session/store.ts";
import { loadTranscript } from "../../src/session/load.ts";
import { createTranscript } from "../../src/session/transcript.ts";
import { emptyUsage } from "../../src/provider/types.ts";
import { randomUUID } from "node:crypto";
import { tempEnv } from "./helpers.ts";

describe("createSessionStore (contracts §5.1, §5.2)", () => {
  test("writes <yokeDir>/projects/<sanitized cwd>/<id>.jsonl lazily, one JSON line per append, in the line shape of contracts §5.2", () => {
    const { env, root } = tempEnv();
    const store = createSessionStore({ cwd: "/h/p_q.r x", sessionId: "abc", env });
    expect(store.path).toBe(join(root, ".yoke", "projects", "-h-p-q-r-x", "abc.jsonl"));
    expect(store.path).toBe(transcriptPath("/h/p_q.r x", "abc", env));
    expect(existsSync(join(root, ".yoke"))).toBe(false);
    const transcript = createTranscript(store, { cwd: () => "/h/p_q.r x", version: "1.2.3", entrypoint: "sdk-cli", gitBranch: () => "main", uuid: randomUUID, now: () => new Date() });
    const u1 = transcript.user({ role: "user", content: "say hi" }, { promptId: "p1", permissionMode: "default" });
    transcript.meta({ type: "file-history-snapshot", messageId: u1, snapshot: {}, isSnapshotUpdate: false });
    const [a1] = transcript.assistant({ id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: "hi" }], stop_reason: "end_turn", stop_sequence: null, usage: emptyUsage() });
    store.flush();
    store.close();
    const lines = readFileSync(store.path, "utf8").split("\n");
    expect(lines.length).toBe(4);
    expect(lines[3]).toBe("");
    const first = JSON.parse(lines[0]!);
    expect(first).toMatchObject({
      parentUuid: null,
      isSidechain: false,
      type: "user",
      userType: "external",
      entrypoint: "sdk-cli",
      cwd: "/h/p_q.r x",
      sessionId: "abc",
      version: "1.2.3",
      gitBranch: "main",
      promptId: "p1",
      message: { role: "user", content: "say hi" },
    });
    expect(first.uuid).toBe(u1);
    expect(Number.isNaN(Date.parse(first.timestamp))).toBe(false);
    expect(JSON.parse(lines[2]!)).toMatchObject({ type: "assistant", parentUuid: u1, uuid: a1 });
    const loaded = loadTranscript(store.path);
    expect(loaded.entries.length).toBe(2);
    expect(loaded.meta.length).toBe(1);
  });

  test("appends after close reopen the file and keep earlier lines", () => {
    const { env } = tempEnv();
    const store = createSessionStore({ cwd: "/x", sessionId: "s", env });
    store.append({ type: "a" });
    store.close();
    store.append({ type: "b" });
    store.close();
    expect(readFileSync(store.path, "utf8")).toBe('{"type":"a"}\n{"type":"b"}\n');
  });

  test("persist:false (--no-session-persistence) writes nothing and has an empty path", () => {
    const { env, root } = tempEnv();
    const store = createSessionStore({ cwd: "/x", sessionId: "s", env, persist: false });
    store.append({ type: "x" });
    store.flush();
    expect(store.path).toBe("");
    expect(existsSync(join(root, ".yoke"))).toBe(false);
  });

  test("subagent transcripts mark lines as sidechain with agentId (contracts §5.1)", () => {
    const { env } = tempEnv();
    const store = createSessionStore({ cwd: "/x", sessionId: "s", env });
    const transcript = createTranscript(store, { cwd: () => "/x", version: "v", entrypoint: "sdk-cli", uuid: randomUUID, now: () => new Date(), isSidechain: true, agentId: "a7d05d0b1523bd020" });
    transcript.user({ role: "user", content: "task" });
    store.close();
    expect(JSON.parse(readFileSync(store.path, "utf8"))).toMatchObject({ isSidechain: true, agentId: "a7d05d0b1523bd020", sessionId: "s" });
  });

  test("an unwritable location is reported once, naming the file, and append never throws", () => {
    const { env, root } = tempEnv();
    writeFileSync(join(root, "blocker"), "a file where a directory should be");
    const errors: string[] = [];
    const store = createSessionStore({ cwd: "/x", sessionId: "s", env: { ...env, YOKE_CONFIG_DIR: join(root, "blocker") }, onError: (m) => errors.push(m) });
    expect(() => {
      store.append({ type: "a" });
      store.append({ type: "b" });
    }).not.toThrow();
    expect(errors.length).toBe(1);
    expect(errors[0]).toContain(store.path);
  });
});

test("a torn fragment left by a killed writer is closed off before the next append (contracts §5.2)", () => {
  const { env } = tempEnv();
  const first = createSessionStore({ cwd: "/x", sessionId: "s", env });
  first.append({ type: "a" });
  first.close();
  writeFileSync(first.path, readFileSync(first.path, "utf8") + '{"type":"tor');
  const second = createSessionStore({ cwd: "/x", sessionId: "s", env });
  second.append({ type: "b", uuid: "keep" });
  second.close();
  const r = loadTranscript(second.path);
  expect(r.meta.map((m) => m.type)).toEqual(["a", "b"]);
  expect(r.warnings.length).toBe(1);
  expect(r.warnings[0]).toContain(":2: line is not valid JSON");
});
