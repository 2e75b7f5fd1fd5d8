import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSessionStore, transcriptPath } from "../../src/session/store.ts";
import { loadTranscript } from "../../src/session/load.ts";
import { tempEnv } from "./helpers.ts";

describe("createSessionStore (contracts §5.1, §5.2)", () => {
  test("writes <yokeDir>/projects/<sanitized cwd>/<id>.jsonl lazily, one JSON line per append", () => {
    const { env, root } = tempEnv();
    const store = createSessionStore({ cwd: "/h/p_q.r x", sessionId: "abc", env, version: "1.2.3", entrypoint: "sdk-cli", gitBranch: "main" });
    expect(store.path).toBe(join(root, ".yoke", "projects", "-h-p-q-r-x", "abc.jsonl"));
    expect(store.path).toBe(transcriptPath("/h/p_q.r x", "abc", env));
    expect(existsSync(join(root, ".yoke"))).toBe(false);
    const b1 = store.nextBase(null);
    store.append({ ...b1, type: "user", message: { role: "user", content: "say hi" }, promptId: "p1", permissionMode: "default" });
    const b2 = store.nextBase(b1.uuid);
    store.append({ type: "file-history-snapshot", messageId: b1.uuid, snapshot: {}, isSnapshotUpdate: false });
    store.flush();
    store.close();
    const lines = readFileSync(store.path, "utf8").split("\n");
    expect(lines.length).toBe(3);
    expect(lines[2]).toBe("");
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
      message: { role: "user", content: "say hi" },
    });
    expect(first.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(first.timestamp))).toBe(false);
    expect(b2.parentUuid).toBe(b1.uuid);
    expect(b2.uuid).not.toBe(b1.uuid);
    const loaded = loadTranscript(store.path);
    expect(loaded.entries.length).toBe(1);
    expect(loaded.meta.length).toBe(1);
  });

  test("appends after close reopen the file and keep earlier lines", () => {
    const { env } = tempEnv();
    const store = createSessionStore({ cwd: "/x", sessionId: "s", env, version: "v" });
    store.append({ type: "a" });
    store.close();
    store.append({ type: "b" });
    store.close();
    expect(readFileSync(store.path, "utf8")).toBe('{"type":"a"}\n{"type":"b"}\n');
  });

  test("persist:false (--no-session-persistence) writes nothing and has an empty path", () => {
    const { env, root } = tempEnv();
    const store = createSessionStore({ cwd: "/x", sessionId: "s", env, version: "v", persist: false });
    store.append({ type: "x" });
    store.flush();
    expect(store.path).toBe("");
    expect(existsSync(join(root, ".yoke"))).toBe(false);
  });

  test("subagent stores mark lines as sidechain with agentId", () => {
    const { env } = tempEnv();
    const store = createSessionStore({ cwd: "/x", sessionId: "s", env, version: "v", agentId: "a7d05d0b1523bd020" });
    expect(store.nextBase(null)).toMatchObject({ isSidechain: true, agentId: "a7d05d0b1523bd020" });
  });

  test("an unwritable location is reported once, naming the file, and append never throws", () => {
    const { env, root } = tempEnv();
    writeFileSync(join(root, "blocker"), "a file where a directory should be");
    const errors: string[] = [];
    const store = createSessionStore({ cwd: "/x", sessionId: "s", env: { ...env, YOKE_CONFIG_DIR: join(root, "blocker") }, version: "v", onError: (m) => errors.push(m) });
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
  const first = createSessionStore({ cwd: "/x", sessionId: "s", env, version: "v" });
  first.append({ type: "a" });
  first.close();
  writeFileSync(first.path, readFileSync(first.path, "utf8") + '{"type":"tor');
  const second = createSessionStore({ cwd: "/x", sessionId: "s", env, version: "v" });
  second.append({ type: "b", uuid: "keep" });
  second.close();
  const r = loadTranscript(second.path);
  expect(r.meta.map((m) => m.type)).toEqual(["a", "b"]);
  expect(r.warnings.length).toBe(1);
  expect(r.warnings[0]).toContain(":2: line is not valid JSON");
});
