import { describe, expect, test } from "bun:test";
import { isInvalidMatcher, matcherMatches } from "../../src/hook/matcher.ts";

// contracts §1.3 matcher semantics
describe("matcherMatches (contracts §1.3)", () => {
  const cases: [string | undefined, string | undefined, boolean][] = [
    [undefined, "Bash", true],
    ["", "Bash", true],
    ["*", "Write", true],
    ["Bash", "Bash", true],
    ["Bash", "bash", false],
    ["Bash", "BashOutput", false],
    ["Write|Edit", "Edit", true],
    ["Write|Edit", "Read", false],
    ["Write, Edit", "Edit", true],
    ["Write , Edit", "Write", true],
    ["Edit.*", "NotebookEdit", true], // unanchored regex
    ["^Edit$", "NotebookEdit", false],
    ["^Edit$", "Edit", true],
    ["mcp__memory__.*", "mcp__memory__create", true],
    ["mcp__memory", "mcp__memory__create", false], // exact string
    ["Task", "Agent", true], // legacy name accepted
    ["Agent", "Task", true],
    ["Task|Bash", "Agent", true],
    ["Ta.k", "Agent", true], // regex also tried on legacy names
    ["KillShell", "TaskStop", true],
    ["startup", "resume", false],
    ["startup|resume", "resume", true],
    ["my-plugin", "my-plugin", true], // `-` is in the exact set
    ["[", "Bash", false], // invalid regex matches nothing
    ["Bash", undefined, false],
  ];
  for (const [m, v, want] of cases) {
    test(`${JSON.stringify(m)} vs ${JSON.stringify(v)} → ${want}`, () => expect(matcherMatches(m, v)).toBe(want));
  }
  test("invalid regex is reported", () => {
    expect(isInvalidMatcher("[")).toBe(true);
    expect(isInvalidMatcher("Bash|Edit")).toBe(false);
    expect(isInvalidMatcher("^Edit$")).toBe(false);
  });
});
