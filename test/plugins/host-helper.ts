import { createDiagnostics } from "../../src/util/diagnostics.ts";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Settings } from "../../src/config/schema.ts";
import { createBackgroundTasks, createPluginHost } from "../../src/plugin/host.ts";
import type { ForkOptions, ForkResult, InProcessHookHandler, PluginHost, SummaryProvider } from "../../src/plugin/types.ts";
import type { Message } from "../../src/provider/types.ts";
import { tempDir } from "../helpers/tmp.ts";

export type TestHost = {
  host: PluginHost;
  messages: Message[];
  tokens: { value: number };
  forks: ForkOptions[];
  notices: string[];
  logs: string[];
  hooks: Array<{ event: string; handler: InProcessHookHandler }>;
  /** Summary providers the plugin offered (live list). */
  providers: Array<{ plugin: string; fn: SummaryProvider }>;
  background: ReturnType<typeof createBackgroundTasks>;
  memoryDir: string | null;
  yokeDir: string;
};

/**
 * A real PluginHost (src/plugin/host.ts) over in-memory session state. The model side of a fork is the
 * test's `fork` function: it stands at the boundary where the runtime would call the model.
 */
export function testHost(o: {
  fork?: (opts: ForkOptions) => Promise<ForkResult>;
  settings?: Settings;
  env?: Record<string, string>;
  memory?: boolean;
  transcriptPath?: string;
  interactive?: boolean;
} = {}): TestHost {
  const yokeDir = tempDir("yoke-plugin-");
  const memoryDir = o.memory === false ? null : join(yokeDir, "projects", "p", "memory") + "/";
  if (memoryDir) mkdirSync(memoryDir, { recursive: true });
  const t: Partial<TestHost> & { messages: Message[]; tokens: { value: number } } = { messages: [], tokens: { value: 0 } };
  const forks: ForkOptions[] = [];
  const notices: string[] = [];
  const logs: string[] = [];
  const hooks: TestHost["hooks"] = [];
  const summaryProviders: Array<{ plugin: string; fn: SummaryProvider }> = [];
  const background = createBackgroundTasks((m) => logs.push(m));
  const host = createPluginHost("test", {
    registerHook: (event, handler) => {
      hooks.push({ event, handler });
      return () => {};
    },
    registerTool: () => {},
    sections: [],
    yokeDir,
    session: {
      sessionId: "sess-1",
      cwd: yokeDir,
      projectDir: yokeDir,
      transcriptPath: o.transcriptPath ?? join(yokeDir, "projects", "p", "sess-1.jsonl"),
      model: "claude-test",
      permissionMode: "default",
      interactive: o.interactive ?? false,
      memoryDir,
      messages: () => t.messages,
      contextTokens: () => t.tokens.value,
    },
    settings: o.settings ?? {},
    env: o.env ?? {},
    fork: async (f) => {
      forks.push(f);
      return o.fork ? o.fork(f) : { text: "done", isError: false, numTurns: 1, toolUses: [] };
    },
    sideQuery: async () => "",
    notify: (_p, m) => void notices.push(m),
    background,
    log: createDiagnostics(),
    summaryProviders,
  });
  return Object.assign(t, {
    host,
    forks,
    notices,
    logs,
    hooks,
    providers: summaryProviders,
    background,
    memoryDir,
    yokeDir,
  }) as TestHost;
}

export const user = (text: string): Message => ({ role: "user", content: text });
export const assistant = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
export const toolCall = (id: string, name: string, input: Record<string, unknown>): Message => ({ role: "assistant", content: [{ type: "tool_use", id, name, input }] });
export const toolResult = (id: string, text: string): Message => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: text }] });

/** A promise with its resolver, to hold a fork open while a test makes more requests. */
export function gate() {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
}
