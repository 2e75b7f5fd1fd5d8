import { z } from "zod";
import { defineTool, truncateMiddle } from "../define-tool.ts";
import { INPUT_SCHEMAS } from "../input-schemas.ts";
import description from "./bash-output.md" with { type: "text" };
import { DEFAULT_MAX_OUTPUT_CHARS } from "./bash.ts";
import { envInt } from "./shell-exec.ts";
import { shellRegistry, takeUnread, type BackgroundShell } from "./background-shells.ts";

const input = () => z.object({
  bash_id: z.string().describe("ID of the background shell, as returned by Bash"),
  filter: z.string().optional().describe("Regular expression; only output lines matching it are returned (the others are discarded)"),
});

export type BashOutputDetails = {
  shellId: string;
  status: BackgroundShell["status"];
  exitCode: number | null;
  stdout: string;
  stderr: string;
};

/** Known shell IDs, for error messages that tell the model what it can use instead. */
export function knownShells(reg: Map<string, BackgroundShell>): string {
  const ids = [...reg.values()].map((s) => `${s.id} (${s.status})`);
  return ids.length ? `Known shells: ${ids.join(", ")}.` : "No background shells have been started in this session.";
}

export function statusLine(sh: BackgroundShell): string {
  if (sh.status === "running") return `Shell ${sh.id} is still running (started ${Math.round((Date.now() - sh.startedAt) / 1000)}s ago).`;
  if (sh.status === "killed") return `Shell ${sh.id} was killed.`;
  return `Shell ${sh.id} has completed with exit code ${sh.exitCode}.`;
}

/** contracts §7.2 BashOutput (legacy): new output of a background shell since the last read. */
export const bashOutputTool = defineTool({
  name: "BashOutput",
  description,
  input,
  jsonSchema: INPUT_SCHEMAS.BashOutput,
  readOnly: true,
  concurrencySafe: true,
  execute({ bash_id, filter }, ctx) {
    const reg = shellRegistry(ctx.session);
    const sh = reg.get(bash_id);
    if (!sh) return { content: `No background shell with ID "${bash_id}". ${knownShells(reg)}`, isError: true };
    let re: RegExp | undefined;
    if (filter !== undefined) {
      try {
        re = new RegExp(filter);
      } catch (err) {
        return { content: `The filter is not a valid regular expression (${(err as Error).message}). Fix it and call BashOutput again.`, isError: true };
      }
    }
    const taken = takeUnread(sh, re);
    // Both streams together stay within the Bash output limit.
    const max = Math.floor(envInt(ctx.env, "BASH_MAX_OUTPUT_LENGTH", DEFAULT_MAX_OUTPUT_CHARS) / (taken.stdout && taken.stderr ? 2 : 1));
    const stdout = truncateMiddle(taken.stdout, max);
    const stderr = truncateMiddle(taken.stderr, max);
    const dropped = taken.dropped;
    const parts = [statusLine(sh)];
    if (dropped) parts.push(`[${dropped} earlier characters were not kept in memory; the output file ${sh.outputFile} keeps them, up to its cap]`);
    if (stdout) parts.push(`<stdout>\n${stdout.replace(/\n$/, "")}\n</stdout>`);
    if (stderr) parts.push(`<stderr>\n${stderr.replace(/\n$/, "")}\n</stderr>`);
    if (!stdout && !stderr) parts.push(re ? "(no new output matching the filter)" : "(no new output)");
    const details: BashOutputDetails = { shellId: sh.id, status: sh.status, exitCode: sh.exitCode, stdout, stderr };
    return { content: parts.join("\n"), details };
  },
});
