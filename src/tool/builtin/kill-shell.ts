import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import description from "./kill-shell.md" with { type: "text" };
import { killShell, shellRegistry } from "./background-shells.ts";
import { knownShells, statusLine } from "./bash-output.ts";

// contracts §7.2: KillShell takes shell_id; TaskStop takes task_id (shell_id deprecated). One tool serves both names.
const input = z
  .object({
    shell_id: z.string().optional().describe("ID of the background shell to stop"),
    task_id: z.string().optional().describe("Same as shell_id (TaskStop name)"),
  })
  .refine((i) => i.shell_id !== undefined || i.task_id !== undefined, "give shell_id (the ID Bash returned, e.g. bash_1)");

/** Stops a background shell's whole process group. */
const tool = defineTool({
  name: "KillShell",
  description,
  input,
  readOnly: false,
  concurrencySafe: false,
  async execute(inp, ctx) {
    const id = (inp.shell_id ?? inp.task_id)!;
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

// The model sees KillShell's contract (shell_id required); task_id stays accepted for TaskStop callers.
tool.jsonSchema = {
  type: "object",
  properties: { shell_id: { type: "string", description: "ID of the background shell to stop, e.g. bash_1" } },
  required: ["shell_id"],
};
export const killShellTool = tool;
