import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { HOOK_EVENTS, type HookEventName } from "../../hook/types.ts";
import { isHookEventName } from "../../hook/events/index.ts";
import { formatHookList, formatHookRun, listHooks, runHooksDry } from "../../hook/tooling.ts";
import { parseArgv, UsageError } from "../args.ts";
import { builtinTools } from "../builtin-tools.ts";
import { compose } from "../compose.ts";
import { writeOut } from "../../util/output.ts";

const USAGE = [
  "Usage: yoke hooks list [--json] [options]",
  "       yoke hooks run EVENT [--tool NAME] [--input JSON | --payload FILE] [--json] [options]",
  "",
  "`run` fires EVENT's configured hooks (settings files and plugins) on a synthetic payload, without a model,",
  "and prints each hook's stdout, stderr, exit code and duration, then the merged decision.",
  "Exit code: 0, or 2 when the merged outcome blocks (exit 2, decision \"block\", or a PreToolUse deny).",
  "Options: --settings, --setting-sources, --plugin-dir and --bare work as for the main command.",
  `Events: ${HOOK_EVENTS.join(", ")}`,
].join("\n");

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
export async function hooksCommand(argv: string[]): Promise<number> {
  const [sub, ...tail] = argv;
  if (!sub || sub === "--help" || sub === "-h" || sub === "help") {
    (sub ? process.stdout : process.stderr).write(`${USAGE}\n`);
    return sub ? 0 : 1;
  }
  if (sub !== "list" && sub !== "run") throw new UsageError(`unknown subcommand '${sub}'\n${USAGE}`);
  const { own, rest } = takeOwn(tail, ["--tool", "--input", "--payload"], ["--json"]);
  const args = parseArgv(rest);
  const json = own["--json"] === true;

  let event: HookEventName | undefined;
  let input: Record<string, unknown> | undefined;
  let payload: Record<string, unknown> | undefined;
  if (sub === "run") {
    const name = args.positionals[0];
    if (!name) throw new UsageError(`error: which event? ${USAGE.split("\n").at(-1)}`);
    if (!isHookEventName(name)) throw new UsageError(`error: unknown hook event '${name}'. ${USAGE.split("\n").at(-1)}`);
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
    const r = await runHooksDry(rt.hooks, event!, { tool, input, payload });
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
