// The real Agent SDK 0.3.332 against the compiled binary (issue 15 points 1 and 3): what travels in `initialize`
// (system prompt, append, agents, settingSources) and the Query methods that become control requests
// (contracts §4.6, §4.7), with streaming input as a host holding a session open would use them.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getSessionMessages, type SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { promptQueue, sdkOptions, sdkQuery, sdkRun } from "../helpers/agent-sdk.ts";
import { tempDir } from "../helpers/tmp.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { waitFor } from "../helpers/wait-for.ts";

const fake = useFakeAnthropic({ perTest: true });

const say = (text: string) => ({ content: [{ type: "text" as const, text }] });
const systemOf = (i: number) => (fake.requests[i]!.body.system as Array<{ text: string }>).map((b) => b.text).join("\n");

/** A session kept open with streaming input; `turn(text)` sends a prompt and waits for its result. */
function session(o: Parameters<typeof sdkOptions>[1] = {}) {
  const input = promptQueue();
  const sink = { stderr: "" };
  const options = sdkOptions(fake, o, sink);
  const q = sdkQuery({ prompt: input.iterable, options });
  const it = q[Symbol.asyncIterator]();
  const seen: SDKMessage[] = [];
  const untilResult = async () => {
    for (;;) {
      const n = await it.next();
      if (n.done) throw new Error(`the session ended before a result; stderr: ${sink.stderr}`);
      seen.push(n.value);
      if (n.value.type === "result") return n.value;
    }
  };
  return {
    q,
    seen,
    sink,
    env: options.env as Record<string, string>,
    async turn(content: string | Array<Record<string, unknown>>, uuid?: string) {
      input.push(content, uuid);
      return untilResult();
    },
    async close() {
      input.end();
      for (;;) if ((await it.next()).done) break;
    },
  };
}

test("initialize answers what the SDK reads: commands, agents as objects (host agents included), models, account", async () => {
  fake.push(say("hi"));
  const s = session({ agents: { reviewer: { description: "Reviews diffs", prompt: "You review.", model: "haiku" } } });
  const init = await s.q.initializationResult();
  expect(init.commands.map((c) => c.name)).toContain("compact");
  const agents = await s.q.supportedAgents();
  expect(agents.find((a) => a.name === "general-purpose")).toMatchObject({ description: expect.any(String) });
  expect(agents.find((a) => a.name === "reviewer")).toMatchObject({ description: "Reviews diffs", model: "haiku" });
  const models = await s.q.supportedModels();
  expect(models.length).toBeGreaterThan(0);
  expect(models.find((m) => m.value === "opus")).toMatchObject({ displayName: expect.any(String), description: expect.any(String) });
  expect((await s.q.accountInfo()).apiKeySource).toBe("ANTHROPIC_API_KEY");
  expect(await s.turn("hello")).toMatchObject({ result: "hi" });
  // system/init comes after the initialize answer and lists the host's agent too
  const sysInit = s.seen.find((m) => m.type === "system" && (m as any).subtype === "init") as any;
  expect(sysInit.agents).toContain("reviewer");
  await s.close();
});

test("systemPrompt: a string replaces the prompt; omitted gives the SDK's one line; the preset with append keeps yoke's and appends", async () => {
  fake.push(say("a"), say("b"), say("c"));
  await sdkRun(fake, "x", { systemPrompt: "You are PIRATE-BOT." });
  expect(systemOf(0)).toContain("You are PIRATE-BOT.");
  expect(systemOf(0)).not.toContain("You are yoke"); // plugin sections (attribution) still follow, as with --system-prompt
  await sdkRun(fake, "x");
  expect(systemOf(1)).toContain("Claude Agent SDK");
  expect(systemOf(1)).not.toContain("You are yoke"); // observed in 2.1.332: the SDK's default is not the coding prompt
  await sdkRun(fake, "x", { systemPrompt: { type: "preset", preset: "claude_code", append: "APPENDED-RULE" } });
  expect(systemOf(2).length).toBeGreaterThan(2000);
  expect(systemOf(2)).toContain("APPENDED-RULE");
});

test("settingSources: [] sends no CLAUDE.md; the default sends it", async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "CLAUDE.md"), "PROJECT-MEMORY-MARKER");
  fake.push(say("a"), say("b"));
  await sdkRun(fake, "x", { cwd, settingSources: [] });
  expect(JSON.stringify(fake.requests[0]!.body.messages)).not.toContain("PROJECT-MEMORY-MARKER");
  await sdkRun(fake, "x", { cwd });
  expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain("PROJECT-MEMORY-MARKER");
});

test("agents: the host's agent runs as a subagent with its prompt", async () => {
  fake.push(
    { content: [{ type: "tool_use", name: "Agent", input: { subagent_type: "reviewer", description: "review", prompt: "look at it" } }] },
    say("LGTM from the reviewer"),
    say("done"),
  );
  const r = await sdkRun(fake, "review please", { agents: { reviewer: { description: "Reviews diffs", prompt: "REVIEWER-SYSTEM-PROMPT" } } });
  expect(r.error).toBeNull();
  expect(systemOf(1)).toContain("REVIEWER-SYSTEM-PROMPT");
  expect(toolResultsOf(fake.requests[2]!)[0]!.text).toContain("LGTM from the reviewer");
});

test("setPermissionMode and setModel take effect on the next turn; setMaxThinkingTokens sets the budget", async () => {
  const cwd = tempDir();
  fake.push(
    { content: [{ type: "tool_use", name: "Write", input: { file_path: join(cwd, "one.txt"), content: "1" } }] },
    say("first"),
    { content: [{ type: "tool_use", name: "Write", input: { file_path: join(cwd, "two.txt"), content: "2" } }] },
    say("second"),
  );
  const s = session({ cwd });
  const first = await s.turn("write one");
  expect((first as any).permission_denials).toHaveLength(1); // default mode, no host to ask: denied
  expect(await s.q.setPermissionMode("acceptEdits")).toMatchObject({ mode: "acceptEdits" });
  // A model that thinks with a budget: the 5.x models always think adaptively (observed in 2.1.332).
  await s.q.setModel("claude-sonnet-4-5");
  await s.q.setMaxThinkingTokens(4096);
  const second = await s.turn("write two");
  expect((second as any).permission_denials).toHaveLength(0);
  expect(readFileSync(join(cwd, "two.txt"), "utf8")).toBe("2");
  const last = fake.requests.at(-1)!.body;
  expect(last.model).toBe("claude-sonnet-4-5");
  expect(last.thinking).toMatchObject({ type: "enabled", budget_tokens: 4096 });
  expect(s.seen.some((m) => m.type === "system" && (m as any).subtype === "status" && (m as any).permissionMode === "acceptEdits")).toBe(true);
  await s.close();
});

test("rewindFiles: a dry run lists the files, the real one restores them (enableFileCheckpointing)", async () => {
  const cwd = tempDir();
  const file = join(cwd, "notes.txt");
  fake.push({ content: [{ type: "tool_use", name: "Write", input: { file_path: file, content: "after\n" } }] }, say("written"));
  const s = session({ cwd, permissionMode: "acceptEdits", enableFileCheckpointing: true });
  const done = await s.turn("change it");
  expect(readFileSync(file, "utf8")).toBe("after\n");
  // The host finds the prompt's uuid as an SDK user would: getSessionMessages (issue 15 point 7).
  const promptUuid = await firstPromptUuid(done.session_id, cwd, s.env.CLAUDE_CONFIG_DIR!);
  const dry = await s.q.rewindFiles(promptUuid, { dryRun: true });
  expect(dry).toMatchObject({ canRewind: true, filesChanged: [file] });
  expect(readFileSync(file, "utf8")).toBe("after\n");
  const real = await s.q.rewindFiles(promptUuid);
  expect(real.canRewind).toBe(true);
  expect(existsSync(file)).toBe(false); // it did not exist before that prompt
  await expect(s.q.rewindFiles("no-such-message")).resolves.toMatchObject({ canRewind: false });
  await s.close();
});

test("replay-user-messages: each prompt comes back once, as sent, with the uuid rewindFiles takes (the SDK's checkpointing recipe)", async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "CLAUDE.md"), "INJECTED-CONTEXT");
  const file = join(cwd, "replayed.txt");
  fake.push({ content: [{ type: "tool_use", name: "Write", input: { file_path: file, content: "x\n" } }] }, say("written"));
  const s = session({ cwd, permissionMode: "acceptEdits", enableFileCheckpointing: true, extraArgs: { "replay-user-messages": null } });
  await s.turn("REPLAY-ME");
  const replays = s.seen.filter((m) => m.type === "user" && (m as any).isReplay) as any[];
  expect(replays).toHaveLength(1);
  expect(JSON.stringify(replays[0]!.message)).toContain("REPLAY-ME");
  expect(JSON.stringify(replays[0]!.message)).not.toContain("INJECTED-CONTEXT");
  expect(await s.q.rewindFiles(replays[0].uuid)).toMatchObject({ canRewind: true, filesChanged: [file] });
  expect(existsSync(file)).toBe(false);
  await s.close();
});

/** The uuid of the session's first prompt, read with the SDK's getSessionMessages. */
async function firstPromptUuid(sessionId: string, cwd: string, configDir: string): Promise<string> {
  const before = process.env.CLAUDE_CONFIG_DIR;
  process.env.CLAUDE_CONFIG_DIR = configDir;
  try {
    const messages = await getSessionMessages(sessionId, { dir: cwd });
    return messages.find((m) => m.type === "user")!.uuid;
  } finally {
    if (before === undefined) delete process.env.CLAUDE_CONFIG_DIR;
    else process.env.CLAUDE_CONFIG_DIR = before;
  }
}

test("mcpServerStatus, getContextUsage, applyFlagSettings; an unsupported key is an error naming it", async () => {
  fake.push(say("one"), say("two"));
  const s = session();
  await s.turn("hi");
  expect(await s.q.mcpServerStatus()).toEqual([]);
  const usage = await s.q.getContextUsage();
  expect(usage.totalTokens).toBeGreaterThan(0);
  expect(usage.maxTokens).toBeGreaterThan(usage.totalTokens);
  expect(usage.categories.map((c) => c.id)).toContain("system_prompt");
  await s.q.applyFlagSettings({ model: "haiku" });
  await s.turn("again");
  expect(fake.requests.at(-1)!.body.model).toBe("claude-haiku-5-5");
  await expect(s.q.applyFlagSettings({ outputStyle: "Explanatory" } as any)).rejects.toThrow(/outputStyle/);
  await s.close();
});

test("interrupt() ends the running turn; the session takes the next prompt", async () => {
  fake.push({ fault: "hang" }, say("after the interrupt"));
  const s = session();
  const input = s.turn("this hangs");
  await waitFor(() => fake.requests.length > 0, "the hanging turn's model request");
  await s.q.interrupt();
  const first = await input;
  expect(first).toMatchObject({ is_error: true, subtype: "error_during_execution" });
  expect(await s.turn("next")).toMatchObject({ result: "after the interrupt" });
  await s.close();
});

test("streaming input: a prompt with an image block reaches the model with the image, text beside it", async () => {
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
  fake.push(say("a red dot"));
  const s = session();
  await s.turn([
    { type: "text", text: "what is in this picture?" },
    { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
  ]);
  const last = fake.requests.at(-1)!.body.messages.at(-1).content as any[];
  expect(last.find((b) => b.type === "image")).toMatchObject({ source: { type: "base64", media_type: "image/png", data: png } });
  expect(last.some((b) => b.type === "text" && b.text === "what is in this picture?")).toBe(true);
  await s.close();
});

test("the host's own uuid on a prompt names its transcript line: rewindFiles takes it; a repeated one is refused by name", async () => {
  const cwd = tempDir();
  const file = join(cwd, "by-host-uuid.txt");
  const mine = crypto.randomUUID();
  fake.push({ content: [{ type: "tool_use", name: "Write", input: { file_path: file, content: "x\n" } }] }, say("written"), say("again"));
  const s = session({ cwd, permissionMode: "acceptEdits", enableFileCheckpointing: true });
  const done = await s.turn("write it", mine);
  expect(existsSync(file)).toBe(true);
  expect(await firstPromptUuid(done.session_id, cwd, s.env.CLAUDE_CONFIG_DIR!)).toBe(mine);
  expect(await s.q.rewindFiles(mine)).toMatchObject({ canRewind: true, filesChanged: [file] });
  expect(existsSync(file)).toBe(false);
  await s.turn("once more", mine);
  expect(s.sink.stderr).toContain(`"uuid" ${mine} was used before; a new one is used`);
  await s.close();
});
