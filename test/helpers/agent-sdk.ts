/**
 * Running the real Agent SDK (`@anthropic-ai/claude-agent-sdk`) against the compiled yoke binary and the fake
 * Messages API: the SDK spawns yoke through `pathToClaudeCodeExecutable` exactly as it spawns Claude Code
 * (contracts §4.7). `sdkRun` collects every message and whatever the SDK threw, never rejects.
 */
import { query, type Options, type Query, type SDKMessage, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import { isolatedEnv, yokeBin } from "./binary.ts";
import { fakeApiEnv, type FakeAnthropic } from "./fake-anthropic.ts";
import { tempDir } from "./tmp.ts";

export type SdkRun = {
  messages: SDKMessage[];
  /** What the SDK's iterator threw, if anything (its message). */
  error: string | null;
  stderr: string;
  env: Record<string, string>;
  cwd: string;
  of<T extends SDKMessage["type"]>(type: T): Array<Extract<SDKMessage, { type: T }>>;
  result: Extract<SDKMessage, { type: "result" }> | undefined;
};

export type SdkOptions = Partial<Options> & { extraEnv?: Record<string, string | undefined> };

/** Options for a query() against yoke: isolated HOME/config dirs, the fake API, a temp cwd unless given. */
export function sdkOptions(fake: FakeAnthropic, o: SdkOptions = {}, sink?: { stderr: string }): Options {
  const { extraEnv, ...rest } = o;
  const env = o.env ?? isolatedEnv({ ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5", ...extraEnv });
  return {
    pathToClaudeCodeExecutable: yokeBin(),
    cwd: o.cwd ?? tempDir(),
    stderr: (d) => {
      if (sink) sink.stderr += d;
    },
    ...rest,
    env,
  };
}

/** Drains a query, collecting messages; the SDK's throw becomes `error`. */
export async function collect(q: Query, meta: { env: Record<string, string>; cwd: string; sink: { stderr: string } }): Promise<SdkRun> {
  const messages: SDKMessage[] = [];
  let error: string | null = null;
  try {
    for await (const m of q) messages.push(m);
  } catch (e) {
    error = (e as Error).message;
  }
  return finishRun(messages, error, meta);
}

export function finishRun(messages: SDKMessage[], error: string | null, meta: { env: Record<string, string>; cwd: string; sink: { stderr: string } }): SdkRun {
  return {
    messages,
    error,
    stderr: meta.sink.stderr,
    env: meta.env,
    cwd: meta.cwd,
    of: (type) => messages.filter((m) => m.type === type) as any,
    result: messages.filter((m) => m.type === "result").at(-1) as any,
  };
}

/**
 * query(), leaving this process's environment as it was: the SDK sets CLAUDE_AGENT_SDK_VERSION in process.env, which
 * would make later tests in this process look like runs under the SDK (transcripts under CLAUDE_CONFIG_DIR).
 */
export function sdkQuery(args: Parameters<typeof query>[0]): Query {
  const before = process.env.CLAUDE_AGENT_SDK_VERSION;
  try {
    return query(args);
  } finally {
    if (before === undefined) delete process.env.CLAUDE_AGENT_SDK_VERSION;
    else process.env.CLAUDE_AGENT_SDK_VERSION = before;
  }
}

/** One query() with a string prompt, run to the end. */
export async function sdkRun(fake: FakeAnthropic, prompt: string | AsyncIterable<SDKUserMessage>, o: SdkOptions = {}): Promise<SdkRun> {
  const sink = { stderr: "" };
  const options = sdkOptions(fake, o, sink);
  const q = sdkQuery({ prompt, options });
  return collect(q, { env: options.env as Record<string, string>, cwd: options.cwd!, sink });
}

/** A streaming-input prompt the test feeds one message at a time; `end()` closes it. */
export function promptQueue() {
  const queue: SDKUserMessage[] = [];
  let wake: (() => void) | null = null;
  let ended = false;
  const it: AsyncIterable<SDKUserMessage> = {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (queue.length) yield queue.shift()!;
        else if (ended) return;
        else await new Promise<void>((r) => (wake = r));
      }
    },
  };
  const poke = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  return {
    iterable: it,
    /** A prompt: plain text, or content blocks (text, images) as a host sends them. */
    push(content: string | Array<Record<string, unknown>>, uuid?: string) {
      queue.push({ type: "user", session_id: "", message: { role: "user", content: content as any }, parent_tool_use_id: null, ...(uuid ? { uuid: uuid as any } : {}) });
      poke();
    },
    end() {
      ended = true;
      poke();
    },
  };
}
