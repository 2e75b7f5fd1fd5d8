/**
 * `yoke permissions recent`: the actions auto mode denied in this folder, newest first (Claude Code's
 * "/permissions → Recently denied"). Reads `<yoke dir>/projects/<folder>/auto-mode-denials.jsonl`.
 */
import { defineCommand } from "citty";
import { type AutoDenial, denialLogPath, readDenials } from "../../permission/auto/denial-log.ts";
import { writeOut } from "../../util/output.ts";
import { UsageError } from "../args.ts";

const KIND: Record<AutoDenial["kind"], string> = { classifier: "blocked", failure: "classifier failed", paused: "auto mode paused" };

const brief = (input: Record<string, unknown>): string => {
  const main = input.command ?? input.file_path ?? input.url ?? input.path ?? input.notebook_path;
  const s = typeof main === "string" ? main : JSON.stringify(input);
  return s.length > 100 ? `${s.slice(0, 100)}…` : s;
};

export function formatDenials(list: AutoDenial[]): string {
  if (!list.length) return "No actions denied by auto mode in this folder.\n";
  return list.map((d) => `${d.time}  ${d.toolName}  ${brief(d.input)}\n  ${KIND[d.kind] ?? d.kind}: ${d.reason}\n`).join("");
}

export const recentCommand = defineCommand({
  meta: { name: "recent", description: "Actions auto mode denied in this folder, newest first" },
  args: {
    json: { type: "boolean", description: "Print JSON" },
    limit: { type: "string", valueHint: "N", description: "How many (default 20)" },
  },
  run: ({ args }) => {
    const limit = args.limit === undefined ? 20 : Number(args.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive whole number (got '${args.limit}')`);
    const list = readDenials(denialLogPath(process.cwd(), process.env), limit);
    writeOut(args.json ? `${JSON.stringify(list, null, 2)}\n` : formatDenials(list));
    return 0;
  },
});
