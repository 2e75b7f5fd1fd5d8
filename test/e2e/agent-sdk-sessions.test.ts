// The real Agent SDK 0.3.332 finds the sessions yoke wrote under it (issue 15 point 7; contracts §5.1, §5.3): yoke
// run by the SDK writes its transcripts under CLAUDE_CONFIG_DIR (or ~/.claude), where the SDK's session helpers look.
import { expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { getSessionMessages, listSessions } from "@anthropic-ai/claude-agent-sdk";
import { isolatedEnv, runYoke } from "../helpers/binary.ts";
import { fakeApiEnv } from "../helpers/fake-anthropic.ts";
import { sdkRun } from "../helpers/agent-sdk.ts";
import { tempDir } from "../helpers/tmp.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";

const fake = useFakeAnthropic({ perTest: true });

const jsonlUnder = (dir: string): string[] =>
  existsSync(dir) ? (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith(".jsonl")).map((f) => join(dir, f)) : [];

/** The SDK's session helpers read CLAUDE_CONFIG_DIR from the host's own environment. */
async function withConfigDir<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const before = process.env.CLAUDE_CONFIG_DIR;
  process.env.CLAUDE_CONFIG_DIR = dir;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.CLAUDE_CONFIG_DIR;
    else process.env.CLAUDE_CONFIG_DIR = before;
  }
}

test("listSessions and getSessionMessages find a session yoke ran under the SDK; resume and fork continue it", async () => {
  const cwd = tempDir();
  const env = isolatedEnv({ ...fakeApiEnv(fake) });
  fake.push({ content: [{ type: "text", text: "FIRST-ANSWER" }] });
  const a = await sdkRun(fake, "FIRST-QUESTION", { cwd, env });
  expect(a.error).toBeNull();
  const id = a.result!.session_id;

  const [listed, messages] = await withConfigDir(env.CLAUDE_CONFIG_DIR!, async () => [await listSessions({ dir: cwd }), await getSessionMessages(id, { dir: cwd })] as const);
  expect(listed.map((s) => s.sessionId)).toContain(id);
  expect(listed.find((s) => s.sessionId === id)!.summary).toContain("FIRST-QUESTION");
  expect(messages.map((m) => m.type)).toEqual(["user", "assistant"]);
  expect(JSON.stringify(messages[1]!.message)).toContain("FIRST-ANSWER");
  // yoke's own folder holds no copy: one transcript, where the SDK looks
  expect(jsonlUnder(join(env.YOKE_CONFIG_DIR!, "projects"))).toEqual([]);

  fake.push({ content: [{ type: "text", text: "SECOND-ANSWER" }] });
  const b = await sdkRun(fake, "SECOND-QUESTION", { cwd, env, resume: id });
  expect(b.result!.session_id).toBe(id);
  expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain("FIRST-ANSWER");

  fake.push({ content: [{ type: "text", text: "FORKED-ANSWER" }] });
  const c = await sdkRun(fake, "THIRD-QUESTION", { cwd, env, resume: id, forkSession: true });
  const forked = c.result!.session_id;
  expect(forked).not.toBe(id);
  const after = await withConfigDir(env.CLAUDE_CONFIG_DIR!, () => listSessions({ dir: cwd }));
  expect(after.map((s) => s.sessionId).sort()).toEqual([id, forked].sort());
  const again = await withConfigDir(env.CLAUDE_CONFIG_DIR!, () => getSessionMessages(id, { dir: cwd }));
  expect(again.map((m) => m.type)).toEqual(["user", "assistant", "user", "assistant"]);
});

test("a session the SDK ran is found from a terminal by id (yoke --resume), and a terminal run stays in yoke's folder", async () => {
  const cwd = tempDir();
  const env = isolatedEnv({ ...fakeApiEnv(fake) });
  fake.push({ content: [{ type: "text", text: "SDK-ANSWER" }] });
  const a = await sdkRun(fake, "SDK-QUESTION", { cwd, env });
  const id = a.result!.session_id;
  fake.push({ content: [{ type: "text", text: "CLI-ANSWER" }] });
  const r = await runYoke(["-p", "CLI-QUESTION", "--resume", id, "--output-format", "json"], { cwd, env: { HOME: env.HOME, ...fakeApiEnv(fake) } });
  expect(r.code).toBe(0);
  expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain("SDK-ANSWER");
  // Without the SDK, a new session is written in yoke's own folder.
  fake.push({ content: [{ type: "text", text: "x" }] });
  const n = await runYoke(["-p", "new one", "--output-format", "json"], { cwd, env: { HOME: env.HOME, ...fakeApiEnv(fake) } });
  expect(jsonlUnder(join(env.YOKE_CONFIG_DIR!, "projects")).map((f) => f.split("/").pop())).toEqual([`${JSON.parse(n.stdout).session_id}.jsonl`]);
  expect(JSON.parse(n.stdout).session_id).not.toBe(id);
});

test("the SDK's session tools work on yoke's files: rename, tag, forkSession, listSubagents / getSubagentMessages; yoke resumes the SDK's fork", async () => {
  const { renameSession, tagSession, forkSession, listSubagents, getSubagentMessages } = await import("@anthropic-ai/claude-agent-sdk");
  const cwd = tempDir();
  const env = isolatedEnv({ ...fakeApiEnv(fake) });
  fake.push(
    { content: [{ type: "tool_use", name: "Agent", input: { subagent_type: "general-purpose", description: "look", prompt: "SUB-PROMPT" } }] },
    { content: [{ type: "text", text: "SUB-ANSWER" }] },
    { content: [{ type: "text", text: "MAIN-ANSWER" }] },
  );
  const a = await sdkRun(fake, "MAIN-QUESTION", { cwd, env });
  expect(a.error).toBeNull();
  const id = a.result!.session_id;
  const forked = await withConfigDir(env.CLAUDE_CONFIG_DIR!, async () => {
    await renameSession(id, "RENAMED-TITLE", { dir: cwd });
    await tagSession(id, "TAGGED", { dir: cwd });
    const info = (await listSessions({ dir: cwd })).find((s) => s.sessionId === id)!;
    expect(info).toMatchObject({ customTitle: "RENAMED-TITLE", tag: "TAGGED" });
    const agents = await listSubagents(id, { dir: cwd });
    expect(agents).toHaveLength(1);
    const sub = await getSubagentMessages(id, agents[0]!, { dir: cwd });
    expect(JSON.stringify(sub)).toContain("SUB-ANSWER");
    return (await forkSession(id, { dir: cwd })).sessionId;
  });
  fake.push({ content: [{ type: "text", text: "AFTER-FORK" }] });
  const b = await sdkRun(fake, "CONTINUE-THE-FORK", { cwd, env, resume: forked });
  expect(b.error).toBeNull();
  expect(b.result!.session_id).toBe(forked);
  expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain("MAIN-ANSWER");
});
