// Tool sets per agent type: Explore read-only, Verify/Review + Bash, general-purpose all but Agent; custom lists.
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { builtinAgents } from "../../src/agent/builtin.ts";
import { toolsForAgent } from "../../src/agent/tools.ts";
import type { AgentDefinition } from "../../src/agent/types.ts";
import { fileTools } from "../../src/tool/builtin/file-tools.ts";
import { defineTool } from "../../src/tool/define-tool.ts";
import { createToolRegistry } from "../../src/tool/registry.ts";

const fake = (name: string, readOnly: boolean | ((i: any) => boolean), aliases?: string[]) =>
  defineTool({ name, aliases, description: name, input: z.object({}).loose(), readOnly, execute: () => ({ content: "" }) });

const parent = createToolRegistry([
  ...fileTools, // Read (read-only), Write, Edit, MultiEdit, NotebookEdit
  fake("Glob", true),
  fake("Grep", true),
  fake("Bash", () => false),
  fake("BashOutput", true),
  fake("TaskStop", false),
  fake("TodoWrite", true),
  fake("AskUserQuestion", true),
  fake("Agent", true, ["Task"]),
  fake("WebFetch", true),
  fake("StructuredOutput", true),
]);
const names = (a: AgentDefinition) => toolsForAgent(a, parent).registry.list().map((t) => t.name);
const builtin = (n: string) => builtinAgents().find((a) => a.name === n)!;
const custom = (over: Partial<AgentDefinition>): AgentDefinition => ({ name: "c", description: "d", systemPrompt: "", source: "project", ...over });

describe("toolsForAgent", () => {
  test("Explore and Plan: tools that are always read-only, no shell tools; never Agent, AskUserQuestion, TodoWrite", () => {
    expect(names(builtin("Explore"))).toEqual(["Read", "Glob", "Grep", "WebFetch"]);
    expect(names(builtin("Plan"))).toEqual(["Read", "Glob", "Grep", "WebFetch"]);
  });
  test("Verify and Review: read-only plus the shell tools", () => {
    expect(names(builtin("Verify"))).toEqual(["Read", "Glob", "Grep", "Bash", "BashOutput", "TaskStop", "WebFetch"]);
    expect(names(builtin("Review"))).toEqual(["Read", "Glob", "Grep", "Bash", "BashOutput", "TaskStop", "WebFetch"]);
  });
  test("general-purpose: everything but Agent (depth 1), the user-facing tools, TodoWrite and the run's StructuredOutput", () => {
    expect(names(builtin("general-purpose"))).toEqual(["Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep", "Bash", "BashOutput", "TaskStop", "WebFetch"]);
  });
  test("custom tools list: legacy names and specifiers map to tools; Agent/Task never granted; unknown names reported", () => {
    const r = toolsForAgent(custom({ tools: ["Read", "Bash(git *)", "Task", "KillBash", "Nope"] }), parent);
    expect(r.registry.list().map((t) => t.name)).toEqual(["Read", "Bash", "TaskStop"]);
    expect(r.unknown).toEqual(["Nope"]);
  });
  test("omitted tools inherit all; disallowedTools removes; '*' means all", () => {
    expect(names(custom({ disallowedTools: ["Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "KillShell"] }))).toEqual(["Read", "Glob", "Grep", "BashOutput", "WebFetch"]);
    expect(names(custom({ tools: ["*"], disallowedTools: ["WebFetch"] }))).toContain("Write");
    expect(names(custom({ tools: ["*"], disallowedTools: ["WebFetch"] }))).not.toContain("WebFetch");
  });
});
