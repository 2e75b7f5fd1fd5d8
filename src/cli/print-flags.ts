import type { ParsedArgs } from "./args.ts";
import { UsageError } from "./args.ts";
import { PERMISSION_MODES, type PermissionMode } from "../permission/types.ts";

export type OutputFormat = "text" | "json" | "stream-json";

/**
 * The flag checks that refuse a headless run before anything starts: the output and input formats, and
 * `--permission-prompt-tool`. Its own light module because the MCP prelaunch (src/cli/mcp-prelaunch.ts) asks it too,
 * before the headless modules load: a run these refuse starts no server, as in Claude Code. Throws UsageError.
 */
export function checkPrintFlags(args: ParsedArgs): { format: OutputFormat; inputFormat: "text" | "stream-json" } {
  const f = (args.flags["output-format"] as string | undefined) ?? "text";
  if (f !== "text" && f !== "json" && f !== "stream-json")
    throw new UsageError(`error: --output-format must be text, json or stream-json (got '${f}')`);
  if (f === "stream-json" && !args.flags.verbose)
    throw new UsageError("Error: When using --print, --output-format=stream-json requires --verbose");
  const i = (args.flags["input-format"] as string | undefined) ?? "text";
  if (i !== "text" && i !== "stream-json") throw new UsageError(`error: --input-format must be text or stream-json (got '${i}')`);
  if (i === "stream-json" && f !== "stream-json") throw new UsageError("Error: --input-format=stream-json requires --output-format=stream-json");
  const promptTool = args.flags["permission-prompt-tool"];
  if (promptTool !== undefined && promptTool !== "stdio")
    throw new UsageError(`error: --permission-prompt-tool supports only "stdio" (got '${String(promptTool)}'); MCP permission tools are not supported yet`);
  if (promptTool === "stdio" && i !== "stream-json")
    throw new UsageError("error: --permission-prompt-tool stdio needs --input-format stream-json (the host answers on stdin)");
  return { format: f, inputFormat: i };
}

/** `--permission-mode` and friends. Throws UsageError naming `where` for an unknown mode. */
export function parsePermissionMode(raw: string | undefined, where: string): PermissionMode | undefined {
  if (raw === undefined) return undefined;
  const m = raw === "manual" ? "default" : raw;
  if (!(PERMISSION_MODES as readonly string[]).includes(m))
    throw new UsageError(`error: ${where} must be one of ${PERMISSION_MODES.join(", ")} (got '${raw}')`);
  return m as PermissionMode;
}

/**
 * Every flag check a run makes before it would start a server, for the MCP prelaunch: the print flags and the
 * `--permission-mode` name (compose says the error; this only keeps a refused run from starting anything). Throws.
 */
export function checkRunFlags(args: ParsedArgs): void {
  checkPrintFlags(args);
  const mode = args.flags["permission-mode"];
  parsePermissionMode(typeof mode === "string" ? mode : undefined, "--permission-mode");
}
