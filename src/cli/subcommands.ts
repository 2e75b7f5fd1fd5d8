import { SettingsError } from "../config/load.ts";
import { UsageError } from "./args.ts";

type Command = (argv: string[]) => Promise<number>;

/** Each command module is loaded only when asked for, so `yoke -p` never pays for them. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  context: async () => (await import("./commands/context.ts")).contextCommand,
  hooks: async () => (await import("./commands/hooks.ts")).hooksCommand,
  plugins: async () => (await import("./commands/plugins.ts")).pluginsCommand,
  permissions: async () => (await import("./commands/permissions.ts")).permissionsCommand,
  sessions: async () => (await import("./commands/sessions.ts")).sessionsCommand,
  rewind: async () => (await import("./commands/rewind.ts")).rewindCommand,
  doctor: async () => (await import("./commands/doctor.ts")).doctorCommand,
  mcp: async () => (await import("./commands/mcp.ts")).mcpCommand,
};

export const SUBCOMMAND_NAMES = Object.keys(COMMANDS);

/** `yoke <command>`. Returns the exit code; usage and settings errors print one clear line. */
export async function runSubcommand(name: string, argv: string[]): Promise<number> {
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`yoke: unknown command '${name}'. See yoke --help.\n`);
    return 1;
  }
  try {
    return await (await load())(argv);
  } catch (e) {
    if (e instanceof UsageError || e instanceof SettingsError) {
      process.stderr.write(`yoke ${name}: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
