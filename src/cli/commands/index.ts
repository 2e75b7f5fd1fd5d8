import type { CommandDef } from "citty";
import { closest } from "../../util/did-you-mean.ts";

/** One row per command: what `yoke --help` lists, and how to load the command's citty definition. */
export type CommandEntry = { usage: string; summary: string; load: () => Promise<CommandDef<any>> };

/**
 * `yoke <command>`: one file per command in this folder, exporting a citty `command`, and one row here.
 * Loaded only when asked for, so `yoke -p` never pays for them.
 */
export const COMMANDS: Record<string, CommandEntry> = {
  context: { usage: "context [--json]", summary: "Instruction files and token breakdown of a request", load: () => import("./context.ts").then((m) => m.command) },
  hooks: { usage: "hooks list | hooks run EVENT", summary: "Configured hooks; run them on a synthetic payload, no model", load: () => import("./hooks.ts").then((m) => m.command) },
  plugins: { usage: "plugins list", summary: "Loaded plugins", load: () => import("./plugins.ts").then((m) => m.command) },
  permissions: { usage: "permissions explain TOOL INPUT | permissions recent", summary: "Which rule decides a tool call, and why", load: () => import("./permissions.ts").then((m) => m.command) },
  sessions: { usage: "sessions list | sessions show ID", summary: "Saved sessions of this folder", load: () => import("./sessions.ts").then((m) => m.command) },
  mcp: { usage: "mcp list | get | add | add-json | remove", summary: "MCP servers of every scope", load: () => import("./mcp.ts").then((m) => m.command) },
  rewind: { usage: "rewind ID --to UUID [--files|--conversation|--both]", summary: "Restore files and/or conversation", load: () => import("./rewind.ts").then((m) => m.command) },
  doctor: { usage: "doctor [--json]", summary: "Whether Bash runs in the kernel sandbox here, and why", load: () => import("./doctor.ts").then((m) => m.command) },
  trust: { usage: "trust [PATH] | trust --list | trust --revoke [PATH]", summary: "Trust a folder's settings, hooks, MCP servers, plugins", load: () => import("./trust.ts").then((m) => m.command) },
};

/**
 * `yoke hoks list`: a first word one or two letters off a command name, without -p, is taken as a
 * mistyped command (the tree answers with "did you mean"), not as a one-word prompt. Pure.
 */
export function looksLikeMistypedCommand(argv: string[], names: string[]): boolean {
  const first = argv[0] ?? "";
  if (!/^[a-z]+$/.test(first) || argv.some((a) => a === "-p" || a === "--print")) return false;
  return closest(first, names) !== undefined;
}
