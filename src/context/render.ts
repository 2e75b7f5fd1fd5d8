import { renderClawInstructions } from "./claw-code.ts";
import type { InstructionFile } from "./types.ts";

// The per-file labels are the ones observed in request bodies (contracts §8); Managed falls through to User's (internals §1.1).
const LABELS: Record<InstructionFile["layer"], string> = {
  managed: " (user's private global instructions for all projects)",
  user: " (user's private global instructions for all projects)",
  project: " (project instructions, checked into the codebase)",
  local: " (user's private project instructions, not checked in)",
  memory: " (user's auto-memory, persists across conversations)",
};

// Contracts §8: the block starts "Codebase and user instructions are shown below"; the rest is ours.
const PREAMBLE =
  "Codebase and user instructions are shown below. They come from the user and the project and take precedence over your default habits: follow them as written.";

const CLOSING =
  "This context may or may not matter for the current task. Use what is relevant and do not mention it otherwise.";

const shown = (f: InstructionFile) => (f.status === "included" || f.status === "truncated") && f.content.trim() !== "";

/** The `Contents of …` sections of the included files, in order, or "" when none. */
export function renderInstructionBody(files: InstructionFile[]): string {
  if (files.some((f) => f.loader === "claw-code")) return renderClawInstructions(files);
  const parts = files.filter(shown).map((f) => `Contents of ${f.path}${LABELS[f.layer]}:\n\n${f.content.trim()}`);
  return parts.length ? `${PREAMBLE}\n\n${parts.join("\n\n")}` : "";
}

/**
 * The text of the one `<system-reminder>` block that goes into the first user message (contracts §8):
 * instruction files (and the MEMORY.md entry, if passed) plus today's date. "" when no file is shown.
 */
export function renderInstructions(files: InstructionFile[], opts: { date?: Date } = {}): string {
  const body = renderInstructionBody(files);
  if (!body) return "";
  const date = (opts.date ?? new Date()).toISOString().slice(0, 10);
  return [
    "<system-reminder>\nContext for this conversation, gathered before your first turn:",
    `# claudeMd\n${body}`,
    `# currentDate\nToday's date is ${date}.`,
    `${CLOSING}\n</system-reminder>`,
  ].join("\n\n");
}

/** A lazily attached file (from `onFileRead`) as the text of its own `<system-reminder>` message. */
export function renderNestedInstruction(file: InstructionFile): string {
  return `<system-reminder>\nContents of ${file.path}:\n\n${file.content.trim()}\n</system-reminder>`;
}
