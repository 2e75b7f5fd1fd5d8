/**
 * The main command's flags, Claude Code's names (contracts §4.1). Parsed by a small table-driven parser
 * because Claude Code's CLI has repeatable and variadic flags and rejects unknown options with
 * `error: unknown option '--x'`, which citty's parser does not do.
 */
import { closest } from "../util/did-you-mean.ts";

export type FlagKind = "boolean" | "string" | "multi" | "optional";
export type FlagDef = { name: string; kind: FlagKind; alias?: string[]; short?: string; help: string; value?: string; hidden?: boolean };

export const FLAGS: FlagDef[] = [
  { name: "print", short: "p", kind: "boolean", help: "Run one prompt headless and print the result (prompt as argument or on stdin)" },
  { name: "output-format", kind: "string", value: "text|json|stream-json", help: "Output format with --print (default text)" },
  { name: "input-format", kind: "string", value: "text|stream-json", help: "Input format with --print (stream-json needs --output-format stream-json)" },
  { name: "verbose", kind: "boolean", help: "Verbose output; required for --output-format stream-json" },
  { name: "include-partial-messages", kind: "boolean", help: "stream-json: emit stream_event lines as the model writes" },
  { name: "include-hook-events", kind: "boolean", help: "stream-json: emit hook_started / hook_response lines" },
  { name: "replay-user-messages", kind: "boolean", help: "stream-json: echo each prompt back with isReplay and its transcript uuid" },
  { name: "max-turns", kind: "string", value: "N", help: "Stop after N model calls (error_max_turns)" },
  { name: "max-budget-usd", kind: "string", value: "USD", help: "Stop before the next request once this much was spent (error_max_budget_usd)" },
  { name: "json-schema", kind: "string", value: "SCHEMA|FILE", help: "Require a final answer matching this JSON Schema (result.structured_output)" },
  { name: "agent", kind: "string", value: "NAME", help: "Run the main conversation as this agent type (its prompt, tools and model)" },
  { name: "agents", kind: "string", value: "JSON", help: 'Subagent types for this run: {"name": {"description", "prompt", "tools"?, "model"?}}' },
  { name: "fallback-model", kind: "string", value: "MODELS", help: "Comma list of models to switch to when the model is overloaded or unavailable" },
  { name: "model", kind: "string", value: "MODEL", help: "Model id or alias (opus, sonnet, haiku, fable)" },
  { name: "effort", kind: "string", value: "LEVEL", help: "Effort for models that take one: low|medium|high|xhigh|max" },
  { name: "thinking", kind: "string", value: "MODE", help: "adaptive|enabled|disabled (default: adaptive where the model has it)" },
  { name: "max-thinking-tokens", kind: "string", value: "N", help: "Think with this token budget (0: no thinking); models that think adaptively ignore it, as in Claude Code" },
  { name: "thinking-display", kind: "string", value: "MODE", help: "Thinking text the API returns: omitted|summarized|updates (default: updates in stream-json, else omitted)" },
  { name: "permission-mode", kind: "string", value: "MODE", help: "default|acceptEdits|plan|bypassPermissions|dontAsk|auto (manual = default)" },
  { name: "dangerously-skip-permissions", kind: "boolean", help: "Same as --permission-mode bypassPermissions" },
  { name: "allowedTools", alias: ["allowed-tools"], kind: "multi", value: "RULES", help: 'Allow rules, comma or space separated, e.g. "Bash(git *) Edit"' },
  { name: "disallowedTools", alias: ["disallowed-tools"], kind: "multi", value: "RULES", help: "Deny rules, same syntax" },
  { name: "tools", kind: "multi", value: "NAMES", help: 'Restrict the built-in tool set ("" for none, "default" for all)' },
  { name: "system-prompt", kind: "string", value: "TEXT", help: "Replace yoke's system prompt" },
  { name: "system-prompt-file", kind: "string", value: "FILE", help: "Replace yoke's system prompt with a file's text" },
  { name: "append-system-prompt", kind: "string", value: "TEXT", help: "Append text to the system prompt" },
  { name: "append-system-prompt-file", kind: "string", value: "FILE", help: "Append a file's text to the system prompt" },
  { name: "resume", short: "r", kind: "optional", value: "[ID]", help: "Resume a session by id (latest in this folder without an id)" },
  { name: "continue", short: "c", kind: "boolean", help: "Continue the most recent session in this folder" },
  { name: "fork-session", kind: "boolean", help: "With --resume/--continue: copy into a new session id" },
  { name: "session-id", kind: "string", value: "UUID", help: "Use this id for the new session" },
  { name: "resume-session-at", kind: "string", value: "UUID", help: "With --resume: continue from this message" },
  { name: "rewind-files", kind: "string", value: "UUID", help: "Restore files to before the given user message of the resumed session" },
  { name: "no-session-persistence", kind: "boolean", help: "Write no transcript" },
  { name: "exit-code-on-denial", kind: "boolean", help: "Exit 3 when the model stopped right after a permission denial (for CI; off by default)" },
  { name: "permission-prompt-tool", kind: "string", value: "stdio", help: "Ask the host over stream-json (control_request can_use_tool) instead of denying" },
  { name: "settings", kind: "string", value: "FILE|JSON", help: "Extra settings (highest precedence below managed)" },
  { name: "setting-sources", kind: "string", value: "LIST", help: "Which settings files to read: user,project,local" },
  { name: "add-dir", kind: "multi", value: "DIRS", help: "Additional working directories" },
  { name: "trust-workspace", kind: "boolean", help: "Trust this folder's settings, hooks, MCP servers and plugins for this run (CI; same as YOKE_TRUST_WORKSPACE=1)" },
  { name: "mcp-config", kind: "multi", value: "FILE|JSON", help: "MCP servers from a file or JSON string {\"mcpServers\":{…}} (repeatable)" },
  { name: "strict-mcp-config", kind: "boolean", help: "Use only the --mcp-config servers" },
  { name: "plugin-dir", kind: "multi", value: "DIR", help: "Load plugins from this folder (repeatable)" },
  { name: "bare", kind: "boolean", help: "No hooks, plugins, instruction files or auto memory" },
  { name: "debug", short: "d", kind: "optional", value: "[FILTER]", help: 'Debug output; optional categories, e.g. "api,hooks" or "!statsig"' },
  { name: "name", short: "n", kind: "string", value: "NAME", help: "Title of the new session (--resume NAME finds it again)" },
  { name: "disable-slash-commands", kind: "boolean", help: "Send prompts that start with / as plain text (no /compact)" },
  { name: "version", short: "v", kind: "boolean", help: "Print the version" },
  { name: "help", short: "h", kind: "boolean", help: "Show this help" },
];

/**
 * Claude Code flags yoke accepts but does not implement yet (the Agent SDK passes some of them): a run goes on
 * with a warning naming the flag instead of failing on an unknown option.
 */
export const IGNORED_FLAGS: FlagDef[] = [
  ...["betas", "debug-file", "permission-prompts", "task-budget", "remote"].map((name) => ({ name, kind: "string" as const })),
  // Claude Code 2.1.332 `--help` options for interactive, IDE, browser and cloud use (issue 17.11): accepted so a
  // Claude Code command line runs, each named in a warning. Arity as Claude Code parses them, so none eats the prompt.
  ...["from-pr", "teleport", "cloud", "prompt-suggestions", "remote-control"].map((name) => ({ name, kind: "optional" as const })),
  ...["autocompact", "environment", "remote-control-session-name-prefix", "system-prompt-snapshot"].map((name) => ({ name, kind: "string" as const })),
  { name: "plugin-url", kind: "multi" as const },
  { name: "bg", alias: ["background"], kind: "boolean" as const },
  { name: "worktree", short: "w", kind: "optional" as const },
  { name: "file", kind: "multi" as const },
].map((f): FlagDef => ({ ...f, help: "", hidden: true }));
const IGNORED_BOOLEAN = [
  "await-initialize",
  "allow-dangerously-skip-permissions",
  "safe-mode",
  "restricted",
  "ide",
  "chrome",
  "no-chrome",
  "tmux",
  "mcp-debug",
  "init",
  "init-only",
  "maintenance",
  "exclude-dynamic-system-prompt-sections",
  "brief",
  "ax-screen-reader",
  "desktop",
  "forward-subagent-text",
];

/** A `--debug` category filter: `api,hooks`, `!statsig,!file` (Claude Code's categories). */
const DEBUG_CATEGORIES = "api|hooks|mcp|statsig|file|permissions|tools|session|plugins|config|auth|model|sandbox|lsp";
const DEBUG_FILTER = new RegExp(`^!?(${DEBUG_CATEGORIES})(,!?(${DEBUG_CATEGORIES}))*$`);

export type ParsedArgs = { flags: Record<string, string | boolean | string[] | undefined>; positionals: string[]; ignored?: string[] };

export class UsageError extends Error {}

const byName = new Map<string, FlagDef>();
for (const f of [...FLAGS, ...IGNORED_FLAGS, ...IGNORED_BOOLEAN.map((name): FlagDef => ({ name, kind: "boolean", help: "", hidden: true }))]) {
  byName.set(`--${f.name}`, f);
  for (const a of f.alias ?? []) byName.set(`--${a}`, f);
  if (f.short) byName.set(`-${f.short}`, f);
}

/** Flags offered as "did you mean" (hidden and ignored ones are not suggested). */
const VISIBLE = FLAGS.filter((f) => !f.hidden).flatMap((f) => [`--${f.name}`, ...(f.alias ?? []).map((a) => `--${a}`)]);

/** Throws UsageError naming the offending flag. */
const IGNORED = new Set([...IGNORED_FLAGS.map((f) => f.name), ...IGNORED_BOOLEAN]);

export function parseArgv(argv: string[]): ParsedArgs {
  const flags: ParsedArgs["flags"] = {};
  const positionals: string[] = [];
  const ignored: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const key = eq > 0 ? arg.slice(0, eq) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    const def = byName.get(key);
    if (!def) {
      // Claude Code's (commander's) wording, then its hint for a near miss of a flag it shows in --help.
      const near = key.startsWith("--") ? closest(key, VISIBLE) : undefined;
      throw new UsageError(`error: unknown option '${key}'${near ? `\n(Did you mean ${near}?)` : ""}`);
    }
    if (IGNORED.has(def.name)) ignored.push(`--${def.name}`);
    const takeValue = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith("-") && next !== "-" && next.length > 1 && byName.has(next.split("=")[0]!)))
        throw new UsageError(`error: option '${key}' needs a value (${def.value ?? "value"})`);
      i++;
      return next;
    };
    switch (def.kind) {
      case "boolean":
        if (inline !== undefined) throw new UsageError(`error: option '${key}' takes no value`);
        flags[def.name] = true;
        break;
      case "string":
        flags[def.name] = takeValue();
        break;
      case "optional": {
        // Like Claude Code's parser, an optional value is the next word when it is not an option (`--resume NAME`);
        // `--debug` takes only a category filter, so `-d "fix the bug"` keeps its prompt.
        const next = argv[i + 1];
        const fits = (v: string) => !v.startsWith("-") && (def.name !== "debug" || DEBUG_FILTER.test(v));
        if (inline !== undefined) flags[def.name] = inline;
        else if (next !== undefined && fits(next)) {
          flags[def.name] = next;
          i++;
        } else flags[def.name] = true;
        break;
      }
      case "multi": {
        const list = (flags[def.name] as string[] | undefined) ?? [];
        list.push(takeValue());
        flags[def.name] = list;
        break;
      }
    }
  }
  return { flags, positionals, ignored };
}

export function renderHelp(version: string, commands: Record<string, { usage: string; summary: string }> = {}): string {
  const lines = [
    `yoke ${version}: a Claude-Code-compatible coding agent`,
    "",
    "Usage: yoke [options] [prompt]",
    "       yoke <command> [args]",
    "",
    "Options:",
  ];
  for (const f of FLAGS.filter((x) => !x.hidden)) {
    const names = [f.short ? `-${f.short}` : null, `--${f.name}`, ...(f.alias ?? []).map((a) => `--${a}`)].filter(Boolean).join(", ");
    const left = `  ${names}${f.value ? ` ${f.value}` : ""}`;
    lines.push(left.length >= 40 ? `${left}\n${" ".repeat(40)}${f.help}` : `${left.padEnd(40)}${f.help}`);
  }
  lines.push(
    "",
    "Commands (each has --help):",
    ...Object.values(commands).map((c) => {
      const left = `  ${c.usage}`;
      return left.length >= 40 ? `${left}   ${c.summary}` : `${left.padEnd(40)}${c.summary}`;
    }),
    "",
    "Exit codes (-p): 0 success; 1 error result (is_error) or bad flags; 130/143 interrupted (SIGINT/SIGTERM);",
    "  with --exit-code-on-denial, 3 when the run completed but the model stopped right after a permission denial.",
    "",
    "Environment: ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL, ANTHROPIC_MODEL, YOKE_CONFIG_DIR, YOKE_TRUST_WORKSPACE, YOKE_SANDBOX",
  );
  return lines.join("\n");
}
