// Issue 11 point 2 (DESIGN rule 5): one table says each tool's canonical name, aliases, whether it is
// read-only and what a rule matches; the registry, the rule parser, the hook matcher and the evaluator read it.
import { describe, expect, test } from "bun:test";
import { builtinTools } from "../../src/cli/builtin-tools.ts";
import { matcherMatches } from "../../src/hook/matcher.ts";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import { parseRule } from "../../src/permission/rule-parse.ts";
import { canonicalToolName, declarationOf, TOOL_DECLARATIONS, toolNames } from "../../src/tool/declarations.ts";
import type { PermissionRule } from "../../src/permission/types.ts";
import { createToolRegistry } from "../../src/tool/registry.ts";
import { tempDir } from "../helpers/tmp.ts";

// contracts §7.1: the legacy names Claude Code still accepts, and what they mean.
const LEGACY: Array<[string, string]> = [
  ["Task", "Agent"],
  ["KillShell", "TaskStop"],
  ["KillBash", "TaskStop"],
  ["AgentOutputTool", "TaskOutput"],
  ["BashOutputTool", "TaskOutput"],
  ["ListMcpResources", "ListMcpResourcesTool"],
  ["ReadMcpResource", "ReadMcpResourceTool"],
];

describe("the table", () => {
  test("no name is declared twice", () => {
    const all = TOOL_DECLARATIONS.flatMap((d) => [d.name, ...d.aliases]);
    expect(new Set(all).size).toBe(all.length);
  });

  test.each(LEGACY)("%s is canonically %s, and every name of a tool gives all of them", (legacy, canonical) => {
    expect(canonicalToolName(legacy)).toBe(canonical);
    expect(toolNames(legacy)).toEqual(toolNames(canonical));
    expect(toolNames(canonical)[0]).toBe(canonical);
  });

  test("every built-in tool is declared, and a static readOnly on the tool agrees with its declaration", () => {
    for (const t of [...builtinTools()]) {
      const d = declarationOf(t);
      expect({ tool: t.name, declared: TOOL_DECLARATIONS.includes(d) }).toEqual({ tool: t.name, declared: true });
      if (typeof t.readOnly === "boolean") expect({ tool: t.name, readOnly: t.readOnly }).toEqual({ tool: t.name, readOnly: d.readOnly });
    }
  });

  test("a tool with no entry declares itself: an MCP tool's readOnlyHint makes it read-only, whole-tool rules only", () => {
    expect(declarationOf({ name: "mcp__db__query", readOnly: true })).toEqual({ name: "mcp__db__query", aliases: [], readOnly: true, effect: "read" });
    expect(declarationOf({ name: "mcp__db__drop", readOnly: false }).effect).toBe("write");
    expect(declarationOf({ name: "mcp__db__drop", readOnly: false }).ruleTarget).toBeUndefined();
  });
});

describe("its readers", () => {
  test.each(LEGACY)("registry: %s finds the tool that serves %s", (legacy, canonical) => {
    const served = builtinTools().find((t) => toolNames(t.name).includes(canonical));
    if (!served) return; // yoke has no such tool (yet): nothing to find
    expect(createToolRegistry(builtinTools()).get(legacy)?.name).toBe(served.name);
  });

  test.each(LEGACY)("rule parser and hook matcher: %s and %s are one tool", (legacy, canonical) => {
    const toolOf = (text: string) => (parseRule(text, { file: "f", index: 0, list: "deny" }) as PermissionRule).toolName;
    expect(toolOf(legacy)).toBe(canonical);
    expect(toolOf(`${legacy}(x)`)).toBe(canonical);
    expect(matcherMatches(legacy, canonical)).toBe(true);
    expect(matcherMatches(canonical, legacy)).toBe(true);
    expect(matcherMatches(`^${legacy}$`, canonical)).toBe(true);
    expect(matcherMatches(`^${canonical}$`, legacy)).toBe(true);
  });

  test("evaluator: a deny on any name of a tool stops a call made under any other name", () => {
    const cwd = tempDir();
    for (const [legacy, canonical] of LEGACY)
      for (const [rule, call] of [
        [legacy, canonical],
        [canonical, legacy],
      ]) {
        const ev = createPermissionEvaluator({ settings: { merged: {}, sources: [] }, cwd, mode: "bypassPermissions", disallowedTools: [rule!] });
        expect({ rule, call, behavior: ev.decide({ toolName: call!, input: {}, readOnly: true, cwd }).behavior }).toEqual({ rule, call, behavior: "deny" });
        expect(ev.isToolHidden(call!)).toBe(true);
      }
  });

  test("evaluator: what a rule matches comes from the declaration (path, command, domain, name)", () => {
    const cwd = tempDir();
    const ev = createPermissionEvaluator({
      settings: { merged: {}, sources: [] },
      cwd,
      disallowedTools: ["Read(./secret/**)", "NotebookEdit(./nb/**)", "WebFetch(domain:evil.test)", "Agent(explore)", "Bash(rm:*)"],
    });
    const deny = (toolName: string, input: Record<string, unknown>) => ev.decide({ toolName, input, readOnly: false, cwd }).behavior === "deny";
    expect(deny("Read", { file_path: `${cwd}/secret/a` })).toBe(true);
    expect(deny("Grep", { path: `${cwd}/secret` })).toBe(true);
    expect(deny("NotebookEdit", { notebook_path: `${cwd}/nb/x.ipynb` })).toBe(true);
    expect(deny("WebFetch", { url: "https://evil.test/x" })).toBe(true);
    expect(deny("Task", { subagent_type: "Explore", prompt: "p" })).toBe(true);
    expect(deny("Bash", { command: "rm -rf x" })).toBe(true);
    expect(deny("WebFetch", { url: "https://good.test/x" })).toBe(false);
  });
});
