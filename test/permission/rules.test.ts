import { describe, expect, test } from "bun:test";
import { parseRule, splitToolList } from "../../src/permission/rule-parse.ts";
import { bashSpecMatches, domainMatches, paramSpecMatches } from "../../src/permission/rule-set.ts";

const src = { file: "f.json", index: 0, list: "allow" as const };

describe("parseRule (contracts §3.1, internals §9.1)", () => {
  test("bare tool and Tool(*) / Tool() mean the whole tool", () => {
    for (const t of ["Bash", "Bash(*)", "Bash()"]) {
      const r = parseRule(t, src);
      expect(r).toMatchObject({ toolName: "Bash", text: t });
      expect((r as { specifier?: string }).specifier).toBeUndefined();
    }
  });
  test("specifier between first ( and final ), with escapes", () => {
    expect(parseRule("Bash(echo \\(hi\\))", src)).toMatchObject({ specifier: "echo (hi)" });
    expect(parseRule("Bash(git commit -m (x))", src)).toMatchObject({ specifier: "git commit -m (x)" });
  });
  test("legacy aliases map to current names", () => {
    expect(parseRule("Task(Explore)", src)).toMatchObject({ toolName: "Agent", specifier: "Explore" });
    expect(parseRule("KillShell", src)).toMatchObject({ toolName: "TaskStop" });
    expect(parseRule("KillBash", src)).toMatchObject({ toolName: "TaskStop" });
  });
  test("bad rules come back as a message, never throw", () => {
    expect(typeof parseRule("Bash(ls", src)).toBe("string");
    expect(typeof parseRule("Ba sh", src)).toBe("string");
    expect(typeof parseRule("", src)).toBe("string");
  });
  test("rule remembers its source", () => {
    expect(parseRule("Read", { file: "x", index: 3, list: "deny" })).toMatchObject({ source: { file: "x", index: 3, list: "deny" }, text: "Read" });
  });
});

describe("splitToolList (contracts §4.1 --allowedTools)", () => {
  test("comma or space separated, parentheses respected", () => {
    expect(splitToolList(["Bash(git *) Edit", "Read,Write", "Bash(npm run test:*),  Grep"])).toEqual(["Bash(git *)", "Edit", "Read", "Write", "Bash(npm run test:*)", "Grep"]);
    expect(splitToolList(["Bash(git commit -m a, b)"])).toEqual(["Bash(git commit -m a, b)"]);
  });

  // A list without parentheses or escapes takes a quicker way (issue 14 point 7); it must split exactly as the
  // character walk does, which a trailing " (" forces (its own last rule dropped). Every kind of separator and space.
  test("without parentheses: the same rules as the character walk", () => {
    const parts = ["Read", "Grep", "mcp__s__t", ",", " ", "\t", "\n", "\u00a0", "\u3000", "\u2028", "\ufeff", ")", "a:b", "ü", "", ",,"];
    let x = 1;
    const pick = () => parts[(x = (x * 1103515245 + 12345) & 0x7fffffff) % parts.length]!;
    for (let n = 0; n < 2000; n++) {
      const v = Array.from({ length: 1 + (n % 7) }, pick).join("");
      expect({ v, rules: splitToolList([v]) }).toEqual({ v, rules: splitToolList([`${v} (`]).slice(0, -1) });
    }
  });
});

describe("Bash specifier matching (contracts §3.1, §9 drift row)", () => {
  const cases: [string, string, boolean][] = [
    ["npm run build", "npm run build", true],
    ["npm run build", "npm run build --prod", false],
    ["npm run test:*", "npm run test", true],
    ["npm run test:*", "npm run test -- a", true],
    ["npm run test:*", "npm run tests", false],
    ["npm run test *", "npm run test", true],
    ["npm run test *", "npm run test x", true],
    ["npm run test *", "npm run testx", false],
    ["ls*", "lsof", true],
    ["git * main", "git push origin main", true],
    ["git * main", "git push origin dev", false],
    ["* --version", "node --version", true],
    ["echo \\*", "echo *", true],
    ["echo \\*", "echo x", false],
    ["git:*", "xargs git", true],
  ];
  for (const [spec, cmd, want] of cases) test(`${spec} vs ${cmd} → ${want}`, () => expect(bashSpecMatches(spec, cmd)).toBe(want));
});

describe("WebFetch domain and param rules", () => {
  test("domain exact, subdomain-only wildcard, any", () => {
    expect(domainMatches("domain:example.com", "https://Example.COM/x")).toBe(true);
    expect(domainMatches("domain:example.com", "https://a.example.com/")).toBe(false);
    expect(domainMatches("domain:*.example.com", "https://a.example.com/")).toBe(true);
    expect(domainMatches("domain:*.example.com", "https://example.com/")).toBe(false);
    expect(domainMatches("domain:*", "https://x.y/")).toBe(true);
    expect(domainMatches("domain:example.com", "not a url")).toBe(false);
  });
  test("Tool(param:value) on non-primary scalar fields only", () => {
    expect(paramSpecMatches("model:opus", { model: "opus" })).toBe(true);
    expect(paramSpecMatches("model:op*", { model: "opus" })).toBe(true);
    expect(paramSpecMatches("run_in_background:true", { run_in_background: true })).toBe(true);
    expect(paramSpecMatches("command:ls", { command: "ls" })).toBe(false);
  });
});
