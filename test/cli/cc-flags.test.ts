// Issue 17 point 11: every option Claude Code 2.1.332 lists in `claude --help` (observed in 2.1.332; arity as its
// parser takes them) parses on yoke: implemented, or accepted and named in a warning. None eats the prompt.
import { describe, expect, test } from "bun:test";
import { parseArgv } from "../../src/cli/args.ts";

type Arity = "none" | "required" | "optional" | "variadic";
/** `claude --help` of 2.1.332, Options section: [long name, arity, short]. */
const CLAUDE_2_1_332_OPTIONS: Array<[string, Arity, string?]> = [
  ["add-dir", "variadic"], ["agent", "required"], ["agents", "required"], ["allow-dangerously-skip-permissions", "none"],
  ["allowedTools", "variadic"], ["allowed-tools", "variadic"], ["append-system-prompt", "required"], ["append-system-prompt-file", "required"],
  ["autocompact", "required"], ["ax-screen-reader", "none"], ["bg", "none"], ["background", "none"], ["bare", "none"],
  ["betas", "required"], ["brief", "none"], ["chrome", "none"], ["cloud", "optional"], ["continue", "none", "c"],
  ["dangerously-skip-permissions", "none"], ["debug", "optional", "d"], ["debug-file", "required"], ["desktop", "none"],
  ["disable-slash-commands", "none"], ["disallowedTools", "variadic"], ["disallowed-tools", "variadic"], ["effort", "required"],
  ["environment", "required"], ["exclude-dynamic-system-prompt-sections", "none"], ["fallback-model", "required"],
  ["file", "variadic"], ["fork-session", "none"], ["forward-subagent-text", "none"], ["from-pr", "optional"], ["help", "none", "h"],
  ["ide", "none"], ["include-hook-events", "none"], ["include-partial-messages", "none"], ["input-format", "required"],
  ["json-schema", "required"], ["max-budget-usd", "required"], ["mcp-config", "variadic"], ["model", "required"],
  ["name", "required", "n"], ["no-chrome", "none"], ["no-session-persistence", "none"], ["output-format", "required"],
  ["permission-mode", "required"], ["permission-prompts", "required"], ["permission-prompt-tool", "required"],
  ["plugin-dir", "required"], ["plugin-url", "required"], ["print", "none", "p"], ["prompt-suggestions", "optional"],
  ["remote-control", "optional"], ["remote-control-session-name-prefix", "required"], ["replay-user-messages", "none"],
  ["restricted", "none"], ["resume", "optional", "r"], ["safe-mode", "none"], ["session-id", "required"],
  ["setting-sources", "required"], ["settings", "required"], ["strict-mcp-config", "none"], ["system-prompt", "required"],
  ["system-prompt-file", "required"], ["system-prompt-snapshot", "required"], ["teleport", "optional"], ["tmux", "none"],
  ["tools", "variadic"], ["verbose", "none"], ["version", "none", "v"], ["worktree", "optional", "w"],
];

const VALUE: Record<string, string> = { "output-format": "json", "input-format": "text", "permission-mode": "default", effort: "high", "max-budget-usd": "1", "session-id": "00000000-0000-4000-8000-000000000000" };

describe("Claude Code 2.1.332 options (issue 17.11)", () => {
  const rows = CLAUDE_2_1_332_OPTIONS.map(([name, arity, short]) => ({ name, arity, short: short ?? "" }));
  test.each(rows)("--$name parses and keeps the prompt", ({ name, arity, short }) => {
    for (const flag of [`--${name}`, ...(short ? [`-${short}`] : [])]) {
      // An optional or variadic value would take a following word, in Claude Code too: the prompt goes first there.
      const argv =
        arity === "none" ? [flag, "the prompt"] : arity === "required" ? [flag, VALUE[name] ?? "x", "the prompt"] : ["the prompt", flag, ...(arity === "variadic" ? ["x"] : [])];
      const a = parseArgv(argv);
      expect(a.positionals).toEqual(["the prompt"]);
    }
  });

  test("each one yoke does not implement is named in a warning; the ones it implements are not", () => {
    const warned = CLAUDE_2_1_332_OPTIONS.filter(([n, arity]) => {
      const a = parseArgv(arity === "none" ? [`--${n}`] : [`--${n}`, VALUE[n] ?? "x"]);
      return (a.ignored ?? []).length > 0;
    }).map(([n]) => n);
    // The rest are implemented (README "Flags"): none of these may turn into a warning unnoticed.
    expect(warned.sort()).toEqual(
      [
        "allow-dangerously-skip-permissions", "autocompact", "ax-screen-reader", "background", "betas", "bg", "brief", "chrome",
        "cloud", "debug-file", "desktop", "environment", "exclude-dynamic-system-prompt-sections", "file", "forward-subagent-text",
        "from-pr", "ide", "no-chrome", "permission-prompts", "plugin-url", "prompt-suggestions", "remote-control",
        "remote-control-session-name-prefix", "restricted", "safe-mode", "system-prompt-snapshot", "teleport", "tmux", "worktree",
      ].sort(),
    );
  });
});
