import { closest } from "../util/did-you-mean.ts";

/** What a built-in command may do to the session; the controller implements it (src/tui/controller.ts). */
export type SlashContext = {
  /** A block of plain text in the session (a report, a notice). */
  show(text: string): void;
  /** Sends text to the model as the user's prompt, through the same path as a typed prompt. */
  send(text: string): void;
  /** Runs `/compact [focus]` (compaction, not a turn). */
  compact(focus: string): void;
  clear(): Promise<void>;
  exit(): void;
  setModel(name: string): string;
  model(): string;
  setEffort(level: string): string;
  report(kind: "context" | "cost" | "status" | "permissions" | "hooks" | "agents" | "plugins" | "memory"): Promise<string> | string;
  resume(): Promise<void>;
  editMemory(): Promise<void>;
  rewind(): Promise<void>;
};

export type BuiltinCommand = { name: string; aliases?: string[]; args?: string; description: string; run(args: string, ctx: SlashContext): Promise<void> | void };

/**
 * A command someone else defines (custom commands and skills, issue 14: src/extension's listSlashCommands): the
 * `/` menu lists it, and typing it sends the line to the model path, which expands it. Its own definer validates it.
 */
export type ExternalCommand = { name: string; description: string; argumentHint?: string };

const EFFORTS = ["low", "medium", "high"];

export const BUILTIN_COMMANDS: BuiltinCommand[] = [
  { name: "help", description: "List the commands and keys", run: (_a, c) => c.show(helpText(BUILTIN_COMMANDS, [])) },
  { name: "clear", aliases: ["reset", "new"], description: "Start a new session (this one stays saved)", run: (_a, c) => c.clear() },
  { name: "compact", args: "[focus]", description: "Summarise the conversation to free context", run: (a, c) => c.compact(a) },
  { name: "context", description: "What fills the context window", run: async (_a, c) => c.show(await c.report("context")) },
  {
    name: "model",
    args: "[name]",
    description: "Show or switch the model",
    run: (a, c) => c.show(a ? `Model set to ${c.setModel(a)}` : `Model: ${c.model()} (switch with /model NAME)`),
  },
  {
    name: "effort",
    args: "low|medium|high",
    description: "Set how hard the model thinks",
    run: (a, c) => c.show(EFFORTS.includes(a) ? `Effort set to ${c.setEffort(a)}` : `Usage: /effort low|medium|high${a ? ` (got "${a}")` : ""}`),
  },
  { name: "permissions", aliases: ["allowed-tools"], description: "Permission rules, where each comes from, recent denials", run: async (_a, c) => c.show(await c.report("permissions")) },
  { name: "hooks", description: "Configured hooks (as yoke hooks list)", run: async (_a, c) => c.show(await c.report("hooks")) },
  { name: "memory", description: "Open a CLAUDE.md or MEMORY.md in $EDITOR", run: (_a, c) => c.editMemory() },
  { name: "resume", description: "Resume another session of this folder", run: (_a, c) => c.resume() },
  { name: "rewind", description: "Restore code or conversation to an earlier prompt", run: (_a, c) => c.rewind() },
  { name: "cost", description: "Tokens and cost of this session", run: async (_a, c) => c.show(await c.report("cost")) },
  { name: "usage", description: "Tokens and cost of this session", run: async (_a, c) => c.show(await c.report("cost")) },
  { name: "agents", description: "Subagent types this session offers", run: async (_a, c) => c.show(await c.report("agents")) },
  { name: "plugins", description: "Loaded plugins", run: async (_a, c) => c.show(await c.report("plugins")) },
  { name: "status", description: "Version, model, mode, session, working directory", run: async (_a, c) => c.show(await c.report("status")) },
  {
    name: "init",
    description: "Ask the model to write a CLAUDE.md for this repository",
    run: (_a, c) =>
      c.send(
        "Look through this repository and write a CLAUDE.md at its root for future coding sessions: how to build, test and run it, the layout and the main modules, and the conventions a contributor must follow. Keep it short and factual; if a CLAUDE.md exists, improve it instead.",
      ),
  },
  { name: "exit", aliases: ["quit"], description: "Leave the session", run: (_a, c) => c.exit() },
];

/** `/help`: every command with one line, then the keys. */
export function helpText(builtins: BuiltinCommand[], external: ExternalCommand[]): string {
  const rows = [
    ...builtins.map((b) => [`/${b.name}${b.args ? ` ${b.args}` : ""}`, b.description]),
    ...external.map((e) => [`/${e.name}${e.argumentHint ? ` ${e.argumentHint}` : ""}`, e.description]),
  ];
  const w = Math.max(...rows.map((r) => r[0]!.length));
  return [
    "Commands:",
    ...rows.map(([n, d]) => `  ${n!.padEnd(w)}  ${d}`),
    "",
    "Keys: Enter send · Shift+Enter or \\+Enter new line · Up/Down history · Esc interrupt · Esc Esc rewind · Ctrl+O show tool output · Shift+Tab permission mode · Ctrl+C clear, twice exit · Ctrl+D exit",
  ].join("\n");
}

export type Parsed =
  | { kind: "builtin"; command: BuiltinCommand; args: string }
  | { kind: "external"; name: string }
  | { kind: "unknown"; name: string; suggestion?: string }
  | { kind: "prompt" };

/** Which command a submitted line is. A line that is not `/word…` (or is a path such as `/usr/bin`) is a prompt. Pure. */
export function parseSlash(line: string, builtins: BuiltinCommand[], external: ExternalCommand[]): Parsed {
  const m = /^\/([A-Za-z][\w:.-]*)(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (!m) return { kind: "prompt" };
  const name = m[1]!;
  const args = (m[2] ?? "").trim();
  const b = builtins.find((c) => c.name === name || c.aliases?.includes(name));
  if (b) return { kind: "builtin", command: b, args };
  // MCP prompts (`/mcp__server__prompt`) and custom commands go to the model path, which expands them.
  if (name.startsWith("mcp__") || external.some((e) => e.name === name)) return { kind: "external", name };
  const names = [...builtins.flatMap((c) => [c.name, ...(c.aliases ?? [])]), ...external.map((e) => e.name)];
  return { kind: "unknown", name, suggestion: closest(name, names) };
}

/** The `/` autocomplete rows: built-ins then external commands, each with its one line. */
export function menuItems(builtins: BuiltinCommand[], external: ExternalCommand[]): Array<{ name: string; description: string; argumentHint?: string }> {
  return [
    ...builtins.map((b) => ({ name: b.name, description: b.description, ...(b.args ? { argumentHint: b.args } : {}) })),
    ...external.map((e) => ({ name: e.name, description: e.description, ...(e.argumentHint ? { argumentHint: e.argumentHint } : {}) })),
  ];
}
