import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import description from "./task-stop.md" with { type: "text" };
import { killShell, shellRegistry } from "./background-shells.ts";
import { knownShells, statusLine } from "./bash-output.ts";

// contracts §7.1/§7.2: TaskStop is the current name and takes task_id; KillShell (and KillBash) stay aliases, and
// their shell_id is still accepted.
const input = () =>
  z
    .object({
      task_id: z.string().optional().describe("ID of the background task to stop"),
      shell_id: z.string().optional().describe("Deprecated: same as task_id (KillShell's name for it)"),
    })
    .refine((i) => i.shell_id !== undefined || i.task_id !== undefined, "give task_id (the ID Bash returned, e.g. bash_1)");

/** Stops a background shell's whole process group. */
const tool = defineTool({
  name: "TaskStop",
  description,
  input,
  // The model sees TaskStop's contract (task_id); shell_id stays accepted for KillShell callers.
  jsonSchema: {
    type: "object",
    properties: { task_id: { type: "string", description: "ID of the background task to stop, e.g. bash_1" } },
    required: ["task_id"],
  },
  readOnly: false,
  concurrencySafe: false,
  async execute(inp, ctx) {
    const id = (inp.task_id ?? inp.shell_id)!;
    const reg = shellRegistry(ctx.session);
    const sh = reg.get(id);
    if (!sh) return { content: `No background shell with ID "${id}". ${knownShells(reg)}`, isError: true };
    // A completed shell may have left a child that still writes to its output; that is still something to stop.
    if (sh.status !== "running" && !sh.outputOpen) {
      return { content: `${statusLine(sh)} Nothing to stop.`, details: { shellId: id, status: sh.status, exitCode: sh.exitCode } };
    }
    await killShell(sh);
    return {
      content: `Stopped background shell ${id} (${sh.command}).`,
      details: { shellId: id, status: sh.status, exitCode: sh.exitCode },
    };
  },
});
export const taskStopTool = tool;
