import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { HOOK_EVENTS, type HookEventName } from "../../hook/types.ts";
import { isHookEventName } from "../../hook/events/index.ts";
import { dryRunTranscript, formatHookList, formatHookRun, listHooks, runHooksDry } from "../../hook/tooling.ts";
import { latestSession } from "../../session/index.ts";
import { defineCommand } from "citty";
import { parseArgv, UsageError } from "../args.ts";
import { runFlagArgs } from "../command-tree.ts";
import { builtinTools } from "../builtin-tools.ts";
import { compose } from "../compose.ts";
import { errLine, writeOut } from "../../util/output.ts";

const EVENTS = `Events: ${HOOK_EVENTS.join(", ")}`;

/** Pulls this command's own options (value-taking ones listed in `withValue`) out of argv; the rest goes to parseArgv. */
function takeOwn(argv: string[], withValue: string[], bools: string[]): { own: Record<string, string | true>; rest: string[] } {
  const own: Record<string, string | true> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf("=");
    const key = a.startsWith("--") && eq > 0 ? a.slice(0, eq) : a;
    if (withValue.includes(key)) {
      const v = eq > 0 && a.startsWith("--") ? a.slice(eq + 1) : argv[++i];
      if (v === undefined) throw new UsageError(`error: option '${key}' needs a value`);
      own[key] = v;
    } else if (bools.includes(a)) own[a] = true;
    else rest.push(a);
  }
  return { own, rest };
}

function parseObject(text: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`error: ${what} is not valid JSON: ${(e as Error).message}`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new UsageError(`error: ${what} must be a JSON object`);
  return v as Record<string, unknown>;
}

/**
 * `yoke hooks list | run` (issue 4 item 7). Needs no credentials. Returns the exit code: 0, 1 on a
 * usage error (thrown as UsageError), and for `run` 2 when the merged outcome blocks.
 */
async function hooksCommand(sub: "list" | "run", tail: string[]): Promise<number> {
  const { own, rest } = takeOwn(tail, ["--tool", "--input", "--payload"], ["--json"]);
  const args = parseArgv(rest);
  const json = own["--json"] === true;

  let event: HookEventName | undefined;
  let input: Record<string, unknown> | undefined;
  let payload: Record<string, unknown> | undefined;
  if (sub === "run") {
    const name = args.positionals[0];
    if (!name) throw new UsageError(`error: which event? ${EVENTS}`);
    if (!isHookEventName(name)) throw new UsageError(`error: unknown hook event '${name}'. ${EVENTS}`);
    event = name;
    if (own["--input"] !== undefined && own["--payload"] !== undefined) throw new UsageError("error: give --input or --payload, not both");
    if (typeof own["--input"] === "string") input = parseObject(own["--input"], "--input");
    if (typeof own["--payload"] === "string") {
      const file = resolve(own["--payload"]);
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (e) {
        throw new UsageError(`error: --payload ${file}: ${(e as Error).message}`);
      }
      payload = parseObject(text, `--payload ${file}`);
    }
  }

  const rt = await compose({ args, cwd: process.cwd(), builtinTools: builtinTools(), requireCredentials: false, reportHookErrors: false });
  try {
    if (sub === "list") {
      const rows = listHooks(rt.hooks);
      writeOut(json ? `${JSON.stringify(rows, null, 2)}\n` : formatHookList(rows));
      return 0;
    }
    const tool = typeof own["--tool"] === "string" ? own["--tool"] : undefined;
    const transcript = dryRunTranscript(latestSession(rt.cwd, rt.env));
    errLine(`yoke: transcript_path is ${transcript.note}, removed after the run: ${transcript.path}`);
    let r;
    try {
      r = await runHooksDry(rt.hooks, event!, { tool, input, payload, transcriptPath: transcript.path });
    } finally {
      transcript.cleanup();
    }
    const blocks = r.outcome.blocked || r.outcome.permissionDecision === "deny";
    if (json) {
      const { records, ...merged } = r.outcome;
      writeOut(`${JSON.stringify({ event, payload: r.payload, hooks: records, merged, blocks }, null, 2)}\n`);
    } else writeOut(formatHookRun(event!, r));
    return blocks ? 2 : 0;
  } finally {
    await rt.shutdown();
  }
}

const RUN_FLAGS = runFlagArgs(["settings", "setting-sources", "trust-workspace", "plugin-dir", "bare"]);
const json = { type: "boolean", description: "Print JSON" } as const;

export const command = defineCommand({
  meta: { name: "hooks", description: "Configured hooks (settings files and plugins); run them on a synthetic payload, no model" },
  subCommands: {
    list: defineCommand({
      meta: { name: "list", description: "Every configured hook, running or not, with the reason when not" },
      args: { json, ...RUN_FLAGS },
      run: ({ rawArgs }) => hooksCommand("list", rawArgs),
    }),
    run: defineCommand({
      meta: {
        name: "run",
        description:
          "Fire EVENT's hooks on a synthetic payload and print each hook's stdout, stderr, exit code and duration, then the merged decision. Exit 0, or 2 when the merged outcome blocks",
      },
      args: {
        event: { type: "positional", required: false, description: EVENTS },
        tool: { type: "string", valueHint: "NAME", description: "Tool name for tool events (the matcher value)" },
        input: { type: "string", valueHint: "JSON", description: "tool_input for tool events" },
        payload: { type: "string", valueHint: "FILE", description: "A whole payload from a file (instead of --input)" },
        json,
        ...RUN_FLAGS,
      },
      run: ({ rawArgs }) => hooksCommand("run", rawArgs),
    }),
  },
});
