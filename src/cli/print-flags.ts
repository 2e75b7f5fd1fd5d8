import type { ParsedArgs } from "./args.ts";
import { UsageError } from "./args.ts";

// `-p`'s format flags, in a module of their own so a headless run checks them before it loads the rest (headless.ts).

export type OutputFormat = "text" | "json" | "stream-json";

export function checkPrintFlags(args: ParsedArgs): { format: OutputFormat; inputFormat: "text" | "stream-json" } {
  const f = (args.flags["output-format"] as string | undefined) ?? "text";
  if (f !== "text" && f !== "json" && f !== "stream-json")
    throw new UsageError(`error: --output-format must be text, json or stream-json (got '${f}')`);
  if (f === "stream-json" && !args.flags.verbose)
    throw new UsageError("Error: When using --print, --output-format=stream-json requires --verbose");
  const i = (args.flags["input-format"] as string | undefined) ?? "text";
  if (i !== "text" && i !== "stream-json") throw new UsageError(`error: --input-format must be text or stream-json (got '${i}')`);
  if (i === "stream-json" && f !== "stream-json") throw new UsageError("Error: --input-format=stream-json requires --output-format=stream-json");
  return { format: f, inputFormat: i };
}
