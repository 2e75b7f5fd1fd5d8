import { SettingsError } from "../config/load.ts";
import { UsageError } from "./args.ts";

const COMMANDS: Record<string, () => Promise<(argv: string[]) => Promise<number>>> = {
  context: async () => (await import("./commands/context.ts")).contextCommand,
};

/** `yoke <command>`: each command module is loaded only when asked for. */
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
