import "../util/zod-setup.ts"; // first: zod reads the setting as each schema is made, and these are made at import
import { z } from "zod";

// The zod schemas of an MCP server entry (contracts §6.6), in a module of their own: config.ts loads it only for an
// entry its JSON Schema check is not sure of (issue 21), with require(), which must name our module, not the zod
// package (a require of the package makes the bundler wrap all of zod: +1.5 MiB of binary, +2 MiB RSS at start).

const stringMap = z.record(z.string(), z.string());

export const serverZodSchemas = {
  stdio: z.looseObject({
    type: z.literal("stdio").optional(),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    cwd: z.string().optional(),
  }),
  remote: z.looseObject({
    type: z.enum(["http", "sse"]),
    url: z.string().min(1),
    headers: stringMap.optional(),
    /** A shell command whose stdout is a JSON object of extra headers, run at each connect. */
    headersHelper: z.string().optional(),
  }),
  sdk: z.looseObject({ type: z.literal("sdk"), name: z.string().optional() }),
};
