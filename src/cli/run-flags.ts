import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { resolveModel } from "../provider/models.ts";
import { parseJsonWithLocation } from "../util/json-error.ts";
import { UsageError } from "./args.ts";

// Run options read from flags alone, each throwing UsageError naming the flag. A module of its own, light (no zod, no
// tool code), because the run's prelude checks them all before it spawns an MCP server (run-prelude.ts).

/** `--json-schema SCHEMA|FILE` read as a JSON object (run-options.ts makes the StructuredOutput tool of it); null without the flag. */
export function readJsonSchemaFlag(raw: string | undefined, cwd: string): Record<string, unknown> | null {
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
  return schema;
}

/** Contents of a `--…-file` flag's file; throws an Error naming the flag and path when it cannot be read. */
export const fileArg = (p: string | undefined, flag: string): string | undefined => {
  if (p === undefined) return undefined;
  try {
    return readFileSync(p, "utf8");
  } catch (e) {
    throw new Error(`${flag}: cannot read ${p}: ${(e as Error).message}`);
  }
};

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
