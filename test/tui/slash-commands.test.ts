import { expect, test } from "bun:test";
import { BUILTIN_COMMANDS, helpText, menuItems, parseSlash } from "../../src/tui/slash-commands.ts";

// Issue 12 point 5: every command is in /help with one line; an unknown /word says so and suggests the nearest.
const REQUIRED = ["help", "clear", "compact", "context", "model", "effort", "permissions", "hooks", "memory", "resume", "rewind", "cost", "usage", "agents", "plugins", "status", "init", "exit"];

test("every built-in the issue names is there, and /help lists each with one line", () => {
  const names = BUILTIN_COMMANDS.map((c) => c.name);
  for (const n of REQUIRED) expect(names).toContain(n);
  const help = helpText(BUILTIN_COMMANDS, []);
  for (const n of REQUIRED) expect(help).toMatch(new RegExp(`^  /${n}\\b.*\\S`, "m"));
});

test("a mistyped command is unknown with the nearest suggested; far-off words get no guess", () => {
  expect(parseSlash("/modle", BUILTIN_COMMANDS, [])).toMatchObject({ kind: "unknown", name: "modle", suggestion: "model" });
  expect(parseSlash("/cleer", BUILTIN_COMMANDS, [])).toMatchObject({ kind: "unknown", suggestion: "clear" });
  expect(parseSlash("/zzzzzzzz", BUILTIN_COMMANDS, [])).toMatchObject({ kind: "unknown", suggestion: undefined });
});

test("arguments, aliases, and lines that are prompts, not commands", () => {
  expect(parseSlash("/model  sonnet ", BUILTIN_COMMANDS, [])).toMatchObject({ kind: "builtin", args: "sonnet" });
  expect(parseSlash("/compact keep the API notes\nand tests", BUILTIN_COMMANDS, [])).toMatchObject({ kind: "builtin", args: "keep the API notes\nand tests" });
  expect(parseSlash("/quit", BUILTIN_COMMANDS, [])).toMatchObject({ kind: "builtin", command: { name: "exit" } });
  // A path, a sentence, a lone slash: prompts for the model.
  for (const p of ["/usr/bin/env is missing", "fix /tmp handling", "/", " hello", "//comment"]) expect(parseSlash(p, BUILTIN_COMMANDS, [])).toEqual({ kind: "prompt" });
});

test("the seam for custom commands and skills: listed in the menu and /help, typed ones go to the model path", () => {
  const ext = [{ name: "review", description: "Review a file", argumentHint: "FILE" }];
  expect(parseSlash("/review src/a.ts", BUILTIN_COMMANDS, ext)).toEqual({ kind: "external", name: "review" });
  expect(parseSlash("/reveiw", BUILTIN_COMMANDS, ext)).toMatchObject({ kind: "unknown", suggestion: "review" });
  expect(menuItems(BUILTIN_COMMANDS, ext).at(-1)).toEqual({ name: "review", description: "Review a file", argumentHint: "FILE" });
  expect(helpText(BUILTIN_COMMANDS, ext)).toContain("/review FILE");
  // MCP prompts are expanded by the model path too.
  expect(parseSlash("/mcp__docs__search q", BUILTIN_COMMANDS, [])).toEqual({ kind: "external", name: "mcp__docs__search" });
});
