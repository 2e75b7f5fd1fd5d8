import { expect, test } from "bun:test";
import { closest } from "../../src/util/did-you-mean.ts";

const COMMANDS = ["context", "hooks", "plugins", "permissions", "sessions", "rewind"];

test.each([
  ["hoks", "hooks"],
  ["hook", "hooks"],
  ["plugin", "plugins"],
  ["sesions", "sessions"],
  ["premissions", "permissions"],
  ["contxet", "context"],
  ["rewnd", "rewind"],
  ["HOOKS", "hooks"],
])("%s → %s", (typo, want) => {
  expect(closest(typo, COMMANDS)).toBe(want);
});

test.each(["fix the bug", "x", "deploy", "", "hooks"])("no suggestion for %p", (word) => {
  expect(closest(word, COMMANDS)).toBeUndefined();
});

test("flags: near misses of the main table, nothing for unrelated ones", () => {
  const flags = ["--model", "--print", "--max-turns", "--allowedTools", "--verbose"];
  expect(closest("--modle", flags)).toBe("--model");
  expect(closest("--max-turn", flags)).toBe("--max-turns");
  expect(closest("--allowed-tool", flags)).toBe("--allowedTools");
  expect(closest("--nope", flags)).toBeUndefined();
});
