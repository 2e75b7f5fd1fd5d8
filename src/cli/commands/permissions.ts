/**
 * `yoke permissions explain TOOL INPUT` (issue 5): decides one tool call exactly as a run in this folder with
 * these flags would, without a model or credentials, and says which rule in which file decided it.
 * A hidden `--batch FILE` (`-` = stdin) reads many queries as JSON lines and prints one JSON line each.
 */
import { readFileSync } from "node:fs";
import type { LoadedSettings } from "../../config/load.ts";
import { collectSettingsHooks } from "../../hook/config.ts";
import { matcherMatches } from "../../hook/matcher.ts";
import { explainDecision, type Evaluator, type Explanation, formatExplanation } from "../../permission/index.ts";
import { canonicalToolName } from "../../permission/rule-parse.ts";
import { builtinDeclaration, declarationOf } from "../../tool/declarations.ts";
import type { PermissionMode } from "../../permission/types.ts";
import { isReadOnly } from "../../tool/define-tool.ts";
import type { Tool } from "../../tool/types.ts";
import { defineCommand } from "citty";
import { parseArgv, type ParsedArgs, UsageError } from "../args.ts";
import { runFlagArgs } from "../command-tree.ts";
import { builtinTools } from "../builtin-tools.ts";
import {
  buildPermissionEvaluator,
  loadSettingsFromArgs,
  memoryWriteDirs,
  modeProblem,
  parsePermissionMode,
  resolvePermissionMode,
} from "../permission-wiring.ts";
import { writeErr, writeOut } from "../../util/output.ts";
import { recentCommand } from "./permissions-recent.ts";

const INPUT_HELP = `The tool input as JSON ('{"command":"cat .env"}'), or a bare string for the tool's main field (Bash: command; Read/Edit/Write/MultiEdit: file_path; NotebookEdit: notebook_path; Glob/Grep/LS: path; WebFetch: url; WebSearch: query; Agent/Task: subagent_type; Skill: skill)`;
const USAGE = "usage: yoke permissions explain TOOL INPUT [--json] [run flags] (see yoke permissions explain --help)";

/** The field a bare-string INPUT fills, from the tool's declaration. */
const mainFieldOf = (tool: string): string | undefined => {
  const d = builtinDeclaration(tool);
  return d?.mainField ?? d?.ruleTarget?.field;
};

/** Parses INPUT. Throws UsageError saying what was wrong and what is expected. */
export function parseExplainInput(tool: string, raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw === "") return {};
  const t = raw.trim();
  if (t.startsWith("{")) {
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch (e) {
      throw new UsageError(`INPUT looks like JSON but does not parse: ${(e as Error).message}`);
    }
    if (!v || typeof v !== "object" || Array.isArray(v)) throw new UsageError("INPUT must be a JSON object");
    return v as Record<string, unknown>;
  }
  const field = mainFieldOf(tool);
  if (!field) throw new UsageError(`${tool} has no main field for a bare INPUT; pass the input as a JSON object, e.g. '{"key":"value"}'`);
  return { [field]: raw };
}

export type ExplainResult = Explanation & {
  tool: string;
  input: Record<string, unknown>;
  /** Why this mode could not start here (a run would exit 1 before calling the model). */
  modeProblem?: string;
  /** False when no built-in tool has this name (it may still come from a plugin or MCP server). */
  builtin: boolean;
  /** Settings hooks that run before this decision in a real run (explain does not run them). */
  hooks: Array<{ event: string; matcher: string; command: string; source: string }>;
};

type Env = Record<string, string>;

function makeContext(args: ParsedArgs, cwd: string) {
  const settings: LoadedSettings = loadSettingsFromArgs(args, cwd);
  const env: Env = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, settings.merged.env ?? {});
  const baseMode = resolvePermissionMode(args, settings);
  const tools = new Map<string, Tool>(builtinTools().map((t) => [t.name, t]));
  const autoAllowWriteDirs = memoryWriteDirs({ cwd, env, settings, bare: !!args.flags.bare });
  const cache = new Map<PermissionMode, Evaluator>();
  const evaluatorFor = (mode: PermissionMode): Evaluator => {
    let ev = cache.get(mode);
    if (!ev) {
      ev = buildPermissionEvaluator({
        args,
        cwd,
        settings,
        env,
        mode,
        autoAllowWriteDirs,
        declarations: (name) => {
          const t = tools.get(name);
          return t ? declarationOf(t) : undefined;
        },
      });
      cache.set(mode, ev);
    }
    return ev;
  };
  // PreToolUse hooks from settings run before the rule decision in a run (plugin hooks are not loaded here).
  const hooks = args.flags.bare ? [] : collectSettingsHooks(settings).filter((h) => !h.disabledBy && h.event === "PreToolUse");
  const explain = (toolArg: string, input: Record<string, unknown>, mode: PermissionMode = baseMode): ExplainResult => {
    const ev = evaluatorFor(mode);
    const tool = tools.get(canonicalToolName(toolArg));
    const readOnly = tool ? isReadOnly(tool, input) : false;
    const e = explainDecision(ev, toolArg, input, { cwd, readOnly });
    const problem = modeProblem(mode, settings, env) ?? undefined;
    if (!tool) e.steps.push(`${toolArg} is not a built-in tool; a plugin or MCP server may provide it`);
    const matched = hooks
      .filter((h) => matcherMatches(h.matcher, canonicalToolName(toolArg)))
      .map((h) => ({ event: h.event, matcher: h.matcher ?? "", command: h.handler.command ?? h.handler.type, source: h.path }));
    for (const h of matched)
      e.steps.push(`in a run, the PreToolUse hook \`${h.command}\` (${h.source}) runs first: its deny or ask wins, its allow cannot override deny or ask rules (explain does not run it)`);
    return { tool: toolArg, input, ...e, ...(problem ? { modeProblem: problem } : {}), builtin: !!tool, hooks: matched };
  };
  return { explain, warnings: evaluatorFor(baseMode).warnings };
}

/** Pulls `--json` and `--batch FILE` out of argv; the rest are run flags. */
function splitOwnFlags(argv: string[]): { json: boolean; batch?: string; rest: string[] } {
  let json = false;
  let batch: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--json") json = true;
    else if (a === "--batch") {
      batch = argv[++i];
      if (batch === undefined) throw new UsageError("--batch needs a file (or - for stdin)");
    } else if (a.startsWith("--batch=")) batch = a.slice(8);
    else rest.push(a);
  }
  return { json, batch, rest };
}

/** One batch line: `{"tool":"Bash","input":{...}|"string","mode"?:"plan"}` → one JSON line (or `{"line":n,"error":...}`). */
function runBatch(text: string, explain: ReturnType<typeof makeContext>["explain"]): void {
  const out: string[] = [];
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    try {
      const q = JSON.parse(line) as { tool?: unknown; input?: unknown; mode?: unknown };
      if (typeof q.tool !== "string" || !q.tool) throw new Error('each line needs "tool" (a string)');
      const input = typeof q.input === "string" ? parseExplainInput(q.tool, q.input) : ((q.input ?? {}) as Record<string, unknown>);
      if (typeof input !== "object" || Array.isArray(input)) throw new Error('"input" must be an object or a string');
      const mode = typeof q.mode === "string" ? parsePermissionMode(q.mode, `line ${i + 1} "mode"`) : undefined;
      out.push(JSON.stringify(explain(q.tool, input, mode)));
    } catch (e) {
      out.push(JSON.stringify({ line: i + 1, error: (e as Error).message }));
    }
  });
  writeOut(out.length ? `${out.join("\n")}\n` : "");
}

/** `yoke permissions explain …`. Exit 0 whatever the decision (the decision is data); 1 for usage or settings errors. */
async function explainCommand(rest: string[]): Promise<number> {
  const own = splitOwnFlags(rest);
  const args = parseArgv(own.rest);
  const ctx = makeContext(args, process.cwd());
  for (const w of ctx.warnings) writeErr(`yoke: ${w}\n`);
  if (own.batch !== undefined) {
    if (args.positionals.length) throw new UsageError("--batch takes its queries from the file, not from TOOL INPUT arguments");
    const text = own.batch === "-" ? await Bun.stdin.text() : readBatchFile(own.batch);
    runBatch(text, ctx.explain);
    return 0;
  }
  const [tool, ...inputParts] = args.positionals;
  if (!tool) throw new UsageError(`missing TOOL.\n${USAGE}`);
  const input = parseExplainInput(tool, inputParts.length ? inputParts.join(" ") : undefined);
  const r = ctx.explain(tool, input);
  writeOut(own.json ? `${JSON.stringify(r, null, 2)}\n` : formatExplanation(r));
  return 0;
}

function readBatchFile(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`--batch ${file}: ${(e as Error).message}`);
  }
}

export const command = defineCommand({
  meta: { name: "permissions", description: "Which rule decides a tool call, and why" },
  subCommands: {
    explain: defineCommand({
      meta: {
        name: "explain",
        description: "Decide TOOL INPUT as a run with these flags would, without a model or credentials, and say which rule in which file decided it. Exit 0 whatever the decision",
      },
      args: {
        tool: { type: "positional", required: false, description: "Tool name (Bash, Read, mcp__server__tool …)" },
        input: { type: "positional", required: false, description: INPUT_HELP },
        json: { type: "boolean", description: "Print JSON" },
        batch: { type: "string", valueHint: "FILE", description: "Many queries as JSON lines ({tool, input, mode?}; - for stdin), one JSON answer line each" },
        ...runFlagArgs(["settings", "setting-sources", "trust-workspace", "permission-mode", "dangerously-skip-permissions", "allowedTools", "disallowedTools", "add-dir", "bare"]),
      },
      run: ({ rawArgs }) => explainCommand(rawArgs),
    }),
    recent: recentCommand,
  },
});
