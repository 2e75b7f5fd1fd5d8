import { contextReport, formatContextReport } from "../../context/index.ts";
import { defineCommand } from "citty";
import { parseArgv } from "../args.ts";
import { runFlagArgs } from "../command-tree.ts";
import { compose } from "../compose.ts";
import { builtinTools } from "../builtin-tools.ts";
import { writeOut } from "../../util/output.ts";

/**
 * `yoke context [--json]` (issue 6): every instruction file with its fate, and a token breakdown of a request.
 * MEMORY.md is one of the files (layer "memory"), so it is counted there and nowhere else.
 */
async function contextCommand(argv: string[]): Promise<number> {
  const json = argv.includes("--json");
  const args = parseArgv(argv.filter((a) => a !== "--json"));
  const rt = await compose({ args, cwd: process.cwd(), builtinTools: builtinTools(), requireCredentials: false });
  // A report shows each server as it ends up, not as it was when a first request would have left.
  await rt.mcp.settled();
  try {
    const files = rt.context.startupFiles();
    const sections = await rt.context.sections(rt.model, rt.tools.list().map((t) => t.name));
    const report = contextReport({
      files,
      systemSections: sections,
      tools: rt.tools.list().map((t) => ({ name: t.name, description: t.description, jsonSchema: t.jsonSchema })),
      messages: rt.convo.messages,
    });
    if (json) writeOut(`${JSON.stringify({ ...report, memory: rt.context.memory, model: rt.model }, null, 2)}\n`);
    else {
      writeOut(`${formatContextReport(report)}\n`);
      const m = rt.context.memory;
      writeOut(`\nAuto memory: ${m.enabled ? m.dir : `off${m.reason ? ` (${m.reason})` : ""}`}\n`);
    }
    return 0;
  } finally {
    await rt.shutdown();
  }
}

export const command = defineCommand({
  meta: { name: "context", description: "Instruction files with their fate, and a token breakdown of a request" },
  args: {
    json: { type: "boolean", description: "Print JSON" },
    ...runFlagArgs(["settings", "setting-sources", "trust-workspace", "add-dir", "bare", "system-prompt", "append-system-prompt", "model", "plugin-dir"]),
  },
  run: ({ rawArgs }) => contextCommand(rawArgs),
});
