import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createPermissionEvaluator, type Evaluator } from "../permission/index.ts";
import { resolveModel } from "../provider/models.ts";
import { jsonTool } from "../tool/json-tool.ts";
import type { Tool } from "../tool/types.ts";
import { parseJsonWithLocation } from "../util/json-error.ts";
import { UsageError } from "./args.ts";

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
  if (raw === undefined) return null;
  const text = raw.trim().startsWith("{") ? raw : (() => {
    try {
      return readFileSync(resolve(cwd, raw), "utf8");
    } catch (e) {
      throw new UsageError(`--json-schema: cannot read ${raw}: ${(e as Error).message}`);
    }
  })();
  let schema: Record<string, unknown>;
  try {
    schema = parseJsonWithLocation(text, "--json-schema") as Record<string, unknown>;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) throw new UsageError("--json-schema: expected a JSON Schema object");
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

export function parseAgentsFlag(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  let v: unknown;
  try {
    v = parseJsonWithLocation(raw, "--agents");
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new UsageError('--agents: expected a JSON object {"name": {"description": …, "prompt": …}}');
  return v as Record<string, unknown>;
}

export const FALLBACK_ERRORS = new Set(["overloaded", "model_not_found", "server_error"]);

export function fallbackModels(flag: string | undefined, setting: string | string[] | undefined, primary: string): string[] {
  const raw = flag !== undefined ? flag.split(",") : Array.isArray(setting) ? setting : setting ? [setting] : [];
  const list = [...new Set(raw.map((m) => m.trim()).filter(Boolean).map(resolveModel))];
  if (flag !== undefined && list.includes(primary)) throw new UsageError(`error: --fallback-model must differ from the main model (${primary})`);
  return list.filter((m) => m !== primary);
}

export function parseBudget(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`error: --max-budget-usd must be a positive number of dollars (got '${raw}')`);
  return n;
}

export function parseMaxTurns(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`error: --max-turns must be a positive whole number (got '${raw}')`);
  return n;
}
