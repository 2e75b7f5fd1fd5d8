import { join } from "node:path";
import { yokeDir } from "../config/paths.ts";
import { createDiagnostics, type Diagnostics } from "../util/diagnostics.ts";
import type { ParsedArgs } from "./args.ts";

/** Diagnostics at the level `--verbose` / `--debug` ask for; `--debug` also copies them to a log file. */
export function runDiagnostics(args: ParsedArgs): Diagnostics {
  const debugOn = args.flags.debug !== undefined && args.flags.debug !== false;
  return createDiagnostics({ verbose: !!args.flags.verbose, debug: debugOn, ...(debugOn ? { logFile: debugLogPath() } : {}) });
}

/** `--debug`'s log file: ~/.yoke/debug/<time>-<pid>.txt (YOKE_CONFIG_DIR moves it). */
function debugLogPath(): string {
  return join(yokeDir(process.env as Record<string, string>), "debug", `${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}.txt`);
}
