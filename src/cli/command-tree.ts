import { renderUsage, runCommand, type ArgsDef, type CommandDef } from "citty";
import { SettingsError } from "../config/load.ts";
import { closest } from "../util/did-you-mean.ts";
import { VERSION } from "../version.ts";
import { FLAGS, UsageError } from "./args.ts";
import { COMMANDS } from "./commands/index.ts";
import { writeErr, writeOut } from "../util/output.ts";
import { releaseJit } from "../util/jit-policy.ts";

const root: CommandDef = {
  meta: { name: "yoke", version: VERSION, description: "yoke's commands (run `yoke --help` for the main command's options)" },
  subCommands: Object.fromEntries(Object.entries(COMMANDS).map(([name, c]) => [name, c.load])),
};

const resolve = async <T>(v: T | (() => T | Promise<T>) | Promise<T> | undefined): Promise<T | undefined> =>
  typeof v === "function" ? await (v as () => T | Promise<T>)() : await v;

/** citty colours its usage text; a pipe or file gets plain text. */
const plain = (text: string, tty: boolean | undefined) => (tty ? text : text.replace(/\x1b\[[0-9;]*m/g, "")).replace(/[ \t]+$/gm, "");

/** Usage of `cmd` under `parent`, with the full command path. */
async function usage(cmd: CommandDef, parent: CommandDef | undefined, tty: boolean | undefined): Promise<string> {
  return plain(await renderUsage(cmd, parent), tty);
}

/** Every spelling of cmd's options: `--name`, its kebab form, aliases (`-x` for one letter). */
async function optionSpellings(cmd: CommandDef): Promise<{ names: Set<string>; takesValue: Set<string> }> {
  const args = ((await resolve(cmd.args)) ?? {}) as ArgsDef;
  const names = new Set(["--help", "-h"]);
  const takesValue = new Set<string>();
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    const aliases = "alias" in def ? [def.alias ?? []].flat() : [];
    const all = [`--${name}`, `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, ...aliases.map((a) => (a.length === 1 ? `-${a}` : `--${a}`))];
    for (const s of all) {
      names.add(s);
      if (def.type === "string" || def.type === "enum") takesValue.add(s);
    }
  }
  return { names, takesValue };
}

/** Throws UsageError for an option `cmd` does not declare, with the nearest one it does. */
async function checkOptions(cmd: CommandDef, argv: string[], path: string): Promise<void> {
  const { names, takesValue } = await optionSpellings(cmd);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") break;
    if (!a.startsWith("-") || a === "-") continue;
    const key = a.startsWith("--") && a.includes("=") ? a.slice(0, a.indexOf("=")) : a;
    if (!names.has(key)) {
      const near = closest(key, names);
      throw new UsageError(`unknown option '${key}'${near ? ` (did you mean ${near}?)` : ""}. See ${path} --help.`);
    }
    if (takesValue.has(key) && !a.includes("=")) i++;
  }
}

/**
 * `yoke <command> [<subcommand>] …` on citty: finds the command, answers `--help` with its usage,
 * rejects unknown subcommands and options with a "did you mean", then runs it. Returns the exit code;
 * usage and settings errors print one clear line and exit 1.
 */
export async function runCommandTree(argv: string[]): Promise<number> {
  releaseJit(); // a subcommand's work (an export, a server) is not start-up: the JIT's normal policy
  let cmd = root;
  let parent: CommandDef | undefined;
  let rest = argv;
  const path = ["yoke"];
  try {
    for (;;) {
      const subs = await resolve(cmd.subCommands);
      if (!subs) break;
      const i = rest.findIndex((a) => !a.startsWith("-"));
      const name = i < 0 ? undefined : rest[i]!;
      const wantsHelp = rest.slice(0, i < 0 ? rest.length : i).some((a) => a === "--help" || a === "-h") || name === "help";
      if (name === undefined || wantsHelp || !(name in subs)) {
        if (wantsHelp) {
          writeOut(`${await usage(cmd, parent, process.stdout.isTTY)}\n`);
          return 0;
        }
        if (name === undefined && cmd.run) break;
        if (name === undefined) {
          writeErr(`${await usage(cmd, parent, process.stderr.isTTY)}\n`);
          throw new UsageError(`which command? One of: ${Object.keys(subs).join(", ")}.`);
        }
        const near = closest(name, Object.keys(subs));
        throw new UsageError(`unknown ${path.length > 1 ? "subcommand" : "command"} '${name}'${near ? ` (did you mean ${[...path, near].join(" ")}?)` : ""}. See ${path.join(" ")} --help.`);
      }
      parent = { ...cmd, meta: { ...((await resolve(cmd.meta)) ?? {}), name: path.join(" ") } };
      cmd = (await resolve(subs[name]))!;
      path.push(name);
      rest = [...rest.slice(0, i), ...rest.slice(i + 1)];
    }
    if (rest.some((a) => a === "--help" || a === "-h")) {
      writeOut(`${await usage(cmd, parent, process.stdout.isTTY)}\n`);
      return 0;
    }
    await checkOptions(cmd, rest, path.join(" "));
    const { result } = await runCommand(cmd, { rawArgs: rest });
    return typeof result === "number" ? result : 0;
  } catch (e) {
    if (e instanceof UsageError || e instanceof SettingsError || (e as Error)?.name === "CLIError") {
      writeErr(`${path.join(" ")}: ${plain((e as Error).message, false)}\n`);
      return 1;
    }
    throw e;
  }
}

/**
 * citty argument definitions for main-command flags a subcommand honours, from the main flag table.
 * Long aliases are left out: citty would print them with one dash, and the kebab spelling of a
 * camelCase name (`--allowed-tools`) is accepted anyway.
 */
export function runFlagArgs(names: string[]): ArgsDef {
  const out: ArgsDef = {};
  for (const n of names) {
    const f = FLAGS.find((x) => x.name === n);
    if (!f) throw new Error(`runFlagArgs: no main flag --${n}`);
    out[f.name] =
      f.kind === "boolean"
        ? { type: "boolean", description: f.help }
        : { type: "string", description: `${f.help}${f.kind === "multi" ? " (repeatable)" : ""}`, valueHint: f.value };
  }
  return out;
}
