import { VERSION } from "./version.ts";

/** argv → Runtime → mode. The only place that reads process.argv, exits, or installs signal handlers. */
async function main(argv: string[]): Promise<number> {
  // --version answers before anything else is loaded: startup is a feature.
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
    process.stdout.write(`${VERSION} (yoke)\n`);
    return 0;
  }
  const { parseArgv, renderHelp, UsageError } = await import("./cli/args.ts");
  const SUBCOMMANDS = new Set(["context", "hooks", "plugins", "permissions", "sessions", "rewind"]);
  if (argv[0] && SUBCOMMANDS.has(argv[0])) {
    const { runSubcommand } = await import("./cli/subcommands.ts");
    return runSubcommand(argv[0], argv.slice(1));
  }
  let args;
  try {
    args = parseArgv(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\n`);
      return 1;
    }
    throw e;
  }
  if (args.flags.version) {
    process.stdout.write(`${VERSION} (yoke)\n`);
    return 0;
  }
  if (args.flags.help) {
    process.stdout.write(`${renderHelp(VERSION)}\n`);
    return 0;
  }
  const { runHeadless } = await import("./cli/headless.ts");
  return runHeadless(args);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`yoke: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
