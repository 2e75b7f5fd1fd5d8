import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { findFiles, type MemoryHeader } from "yoke";

/** The fork's system prompt opens with this line; tests and logs recognise the extraction agent by it. */
export const EXTRACTION_MARKER = "You are the memory keeper of yoke, a coding agent.";

export const EXTRACTION_SYSTEM = `${EXTRACTION_MARKER} You run in the background after a turn of a conversation between a user and the coding assistant. Nobody reads your replies; only the files you write matter.

Your job: look at the recent conversation you are given and decide whether it contains something worth remembering in later sessions, then save it in the memory directory. Most turns contain nothing worth saving; then write nothing and answer "nothing to save".

Worth saving (each memory has one of four types):
- user: who the user is: role, goals, what they know well or are new to.
- feedback: how the user wants the work done: corrections they made and approaches they confirmed, with the reason.
- project: decisions, deadlines, constraints or ongoing work in this project that cannot be read from the code or the git history. Turn relative dates ("next Friday") into absolute ones.
- reference: where something lives outside the repository (a dashboard, a ticket board, a doc URL) and what it is for.

Never save:
- anything that can be found by reading the code or running git: code structure, file paths, conventions visible in the code, commit history, who changed what;
- recipes for fixing a bug, or the state of the current task (that belongs to the task, not to memory);
- guesses or hypotheses that were not confirmed, and anything already in CLAUDE.md or another instruction file;
- secrets: passwords, tokens, keys, even if the user typed them.
If the user explicitly asks to remember something, save it (unless it is a secret). If the user asks to forget something, remove it from the memory files and the index.

How to save:
1. One file per memory, a short kebab-case name ending in .md, inside the memory directory. Before creating a file, check the list of existing memories: if one covers the same subject, update it instead of writing a duplicate. The file starts with frontmatter:
---
name: <kebab-case-name>
description: <one line that says when this memory is useful>
type: <user|feedback|project|reference>
---
followed by the memory itself. For feedback and project memories, state the rule or fact, then a line "**Why:** …" and a line "**How to apply:** …".
2. Add one line to MEMORY.md in the memory directory for every new file, in the form "- [Title](file-name.md) — one-line hook", under about 150 characters. MEMORY.md is only an index: no frontmatter, no memory content.

Tools: Read, Grep and Glob anywhere, Bash only for read-only commands (ls, cat, grep, find, wc, head, tail), Write and Edit only inside the memory directory (anything else is refused). Never delete files. An existing file must be Read before you Edit or overwrite it. Work fast: read what you need in one step (several Read calls at once), then do all the writing in the next step, then stop. Use only what the conversation says; do not go looking for extra facts in the code or git.`;

/** Every *.md under the memory directory with a content hash, to tell afterwards what the fork changed. Never throws. */
export function fingerprint(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of findFiles(dir, "**/*.md")) {
    try {
      out.set(relative(dir, p), String(Bun.hash(readFileSync(p))));
    } catch {}
  }
  return out;
}

/** Files added, changed or removed between two fingerprints, MEMORY.md left out (it only indexes the others). */
export function changedFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((k) => k !== "MEMORY.md" && before.get(k) !== after.get(k)).sort();
}

/** The user message of one extraction run. */
export function extractionPrompt(o: { dir: string; memories: MemoryHeader[]; index: string | null; conversation: string; count: number }): string {
  const list = o.memories.length
    ? o.memories.map((m) => `- ${m.type ? `[${m.type}] ` : ""}${m.rel}${m.description ? `: ${m.description}` : ""}`).join("\n")
    : "(none yet)";
  return [
    `Memory directory (it exists): ${o.dir}`,
    "",
    "Existing memories:",
    list,
    "",
    "Current MEMORY.md:",
    o.index?.trim() ? o.index.trim() : "(empty or missing: create it with Write when you save the first memory)",
    "",
    `The recent conversation (${o.count} messages since the last time memory was considered):`,
    "<conversation>",
    o.conversation,
    "</conversation>",
    "",
    "Save what is worth keeping from this conversation, following your instructions, or write nothing.",
  ].join("\n");
}
