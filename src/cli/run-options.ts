import { createPermissionEvaluator, type Evaluator } from "../permission/index.ts";
import { jsonTool } from "../tool/json-tool.ts";
import type { Tool } from "../tool/types.ts";
import { UsageError } from "./args.ts";
import { readJsonSchemaFlag } from "./run-flags.ts";

export { fallbackModels, FALLBACK_ERRORS, parseAgentsFlag, parseBudget, parseMaxTurns } from "./run-flags.ts";

// Run options that need more than a flag lookup. Each throws UsageError naming the flag.

/** A hook's `if` rule (contracts §1.2) matches when that rule, alone as a deny rule, would deny the call. */
export function hookIfMatcher(cwd: string, env: Record<string, string>) {
  const cache = new Map<string, Evaluator>();
  return (rule: string, toolName: string, input: Record<string, unknown>): boolean => {
    let ev = cache.get(rule);
    if (!ev) {
      ev = createPermissionEvaluator({ settings: { merged: {}, sources: [] }, mode: "bypassPermissions", cwd, env, disallowedTools: [rule] });
      cache.set(rule, ev);
    }
    const d = ev.decide({ toolName, input, readOnly: false, cwd });
    return d.behavior === "deny" && d.rule?.text === rule;
  };
}

/** The StructuredOutput tool and its end-of-turn check for `--json-schema SCHEMA|FILE`; null without the flag. Throws UsageError. */
export function structuredOutput(raw: string | undefined, cwd: string) {
  const schema = readJsonSchemaFlag(raw, cwd);
  if (!schema) return null;
  // The tool's input must be an object; a schema for anything else is wrapped in { result }.
  const wrapped = schema.type === "object" ? null : "result";
  const inputSchema = wrapped ? { type: "object", properties: { result: schema }, required: ["result"] } : schema;
  let value: unknown;
  let nudges = 0;
  let tool: Tool;
  try {
    tool = jsonTool({
      name: "StructuredOutput",
      description:
        "Give your final answer through this tool, exactly once, when the task is done: its input must match the schema the user asked for. Do not restate it in text afterwards.",
      inputSchema,
      readOnly: true,
      execute: (input) => {
        value = wrapped ? input.result : input;
        return "Structured output recorded. End your turn now.";
      },
    });
  } catch (e) {
    throw new UsageError(`--json-schema: ${(e as Error).message}`);
  }
  return {
    tool,
    value: () => value,
    beforeEnd: () => {
      if (value !== undefined) return undefined;
      if (++nudges > MAX_STRUCTURED_NUDGES)
        return { kind: "fail" as const, subtype: "error_max_structured_output_retries" as const, error: `The model did not call StructuredOutput after ${MAX_STRUCTURED_NUDGES} reminders` };
      return { kind: "continue" as const, reminder: "You must give your final answer by calling the StructuredOutput tool with input matching its schema. Call it now." };
    },
  };
}

const MAX_STRUCTURED_NUDGES = 3;

