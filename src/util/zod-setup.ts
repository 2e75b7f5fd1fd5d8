import { config } from "zod";

/**
 * Zod without its JIT: by default each object schema compiles a parser with `new Function` on its first parse
 * (~1–2 ms of CPU each), which pays back only over thousands of parses. A run parses each schema a handful of times
 * (settings files, hook output, tool inputs), so compiling costs the start more than it saves (issue 21). Zod reads
 * the setting when a schema is made: imported first by each way in that makes schemas (headless.ts, the TUI) and by
 * the modules that make schemas as they load (config/schema.ts, mcp/config-schemas.ts), whoever loads them first.
 */
config({ jitless: true });
