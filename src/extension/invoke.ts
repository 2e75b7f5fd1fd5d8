import { readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { PermissionDecision, PermissionQuery } from "../permission/types.ts";
import type { TextBlock } from "../provider/types.ts";
import { parseFrontmatter } from "../util/frontmatter.ts";
import { fileMentions, shellSpans, substitute, type RenderVars } from "./render.ts";
import type { SlashCommand } from "./types.ts";

/** What expanding a skill or command may touch; every effect comes in here. */
export type InvokeDeps = {
  cwd: () => string;
  vars: () => RenderVars;
  /** The one permission evaluator (with the command's `allowed-tools` already granted). */
  decide: (q: PermissionQuery) => PermissionDecision;
  /** Runs one shell command as the Bash tool would (sandbox included); the output text and whether it failed. */
  runShell: (command: string, signal: AbortSignal) => Promise<{ output: string; isError: boolean }>;
  /** A problem worth one line on stderr (a missing `@file`), reported once per file and path. */
  warn: (message: string) => void;
};

/** Expansion failed: the message names the file and what went wrong, worded for the person or the model. */
export class ExpansionError extends Error {}

/** Included `@file` contents are cut beyond this many characters. */
const MAX_INCLUDE_CHARS = 100_000;

/** The body of a skill or command file, read now (bodies load on use, seed 000). Throws ExpansionError naming the file. */
export function readBody(cmd: SlashCommand): string {
  let text: string;
  try {
    text = readFileSync(cmd.file, "utf8");
  } catch (e) {
    throw new ExpansionError(`${cmd.file}: cannot read /${cmd.name}: ${(e as Error).message}`);
  }
  return parseFrontmatter(text, { parse: false }).body.replace(/^\s*\n/, "");
}

const warned = new Set<string>();

/**
 * A skill's or command's text as it reaches the model: placeholders filled, `!` commands run through the
 * permission engine (a refused one stops the expansion with an ExpansionError naming the file and command),
 * and `@file` mentions attached as extra blocks. Skills start with their base directory.
 */
export async function expandBody(cmd: SlashCommand, args: string, d: InvokeDeps, signal: AbortSignal): Promise<TextBlock[]> {
  let body = substitute(readBody(cmd), cmd, args, d.vars());
  const spans = shellSpans(body);
  if (spans.length) {
    const outputs: string[] = [];
    for (const s of spans) {
      const decision = d.decide({ toolName: "Bash", input: { command: s.command }, readOnly: false, cwd: d.cwd() });
      if (decision.behavior !== "allow")
        throw new ExpansionError(
          `${cmd.file}: /${cmd.name} runs \`${s.command}\`, which the permission rules do not allow (${decision.reason.replace(/\.$/, "")}). ` +
            `Add a matching Bash(...) entry to its allowed-tools frontmatter or an allow rule, then run it again.`,
        );
      const r = await d.runShell(s.command, signal);
      outputs.push(r.output.replace(/\s+$/, ""));
    }
    let out = "";
    let at = 0;
    spans.forEach((s, i) => {
      out += body.slice(at, s.start) + outputs[i];
      at = s.end;
    });
    body = out + body.slice(at);
  }
  const blocks: TextBlock[] = [{ type: "text", text: cmd.baseDir ? `Base directory for this skill: ${cmd.baseDir}\n\n${body}` : body }];
  for (const mention of cmd.kind === "command" ? fileMentions(body) : []) {
    const abs = isAbsolute(mention) ? mention : resolve(d.cwd(), mention.replace(/^~(?=\/)/, d.vars().projectDir));
    let isFile = false;
    try {
      isFile = statSync(abs).isFile();
    } catch {}
    if (!isFile) {
      // `@param` in prose is not a file reference; a path-like mention that names nothing is worth a line.
      const key = `${cmd.file}\0${mention}`;
      if (/[/.]/.test(mention) && !warned.has(key)) {
        warned.add(key);
        d.warn(`${cmd.file}: /${cmd.name} mentions @${mention}, but ${abs} does not exist; it is not attached`);
      }
      continue;
    }
    const decision = d.decide({ toolName: "Read", input: { file_path: abs }, readOnly: true, cwd: d.cwd() });
    // Only what a Read would do without asking is attached (a file outside the working folders, a credential store).
    if (decision.behavior !== "allow") {
      blocks.push({ type: "text", text: `(@${mention} was not attached: ${decision.reason})` });
      continue;
    }
    let text: string;
    try {
      text = readFileSync(abs, "utf8");
    } catch (e) {
      d.warn(`${cmd.file}: /${cmd.name}: cannot read @${mention}: ${(e as Error).message}`);
      continue;
    }
    if (text.length > MAX_INCLUDE_CHARS) text = `${text.slice(0, MAX_INCLUDE_CHARS)}\n[... cut at ${MAX_INCLUDE_CHARS} characters of ${text.length}]`;
    blocks.push({ type: "text", text: `<system-reminder>\nContents of @${mention} (${abs}), attached by /${cmd.name}:\n${text}\n</system-reminder>` });
  }
  return blocks;
}

/** The marker block of a user-typed command (contracts §6.2: `<command-message>`, `<command-name>`, `<command-args>`). */
export const commandMarker = (name: string, args: string): TextBlock => ({
  type: "text",
  text: `<command-message>${name}</command-message>\n<command-name>/${name}</command-name>\n<command-args>${args}</command-args>`,
});
