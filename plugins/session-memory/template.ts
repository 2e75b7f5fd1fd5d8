/** The session notes file: a fixed list of sections, each a `# ` heading, an italic line saying what goes there, then the content. */

export const SECTIONS: ReadonlyArray<{ heading: string; hint: string }> = [
  { heading: "Session Title", hint: "A short, specific title for this session, five to ten words." },
  { heading: "Current State", hint: "What is being worked on at this moment, what was just finished, and the very next step." },
  { heading: "Task", hint: "What the user asked for, with every requirement, constraint and preference they gave." },
  { heading: "Files and Functions", hint: "Files and functions that matter for the task: the path, what is there, and why it matters." },
  { heading: "Workflow", hint: "Commands used to build, run, test and check the work, in the order they are used." },
  { heading: "Errors and Corrections", hint: "Errors met and how they were solved, what the user corrected, and approaches that failed and must not be tried again." },
  { heading: "Codebase and System Notes", hint: "How the parts of the system that this task touches fit together." },
  { heading: "Learnings", hint: "What worked, what did not, and what to keep in mind from here on." },
  { heading: "Key Results", hint: "Exact results the user asked for (answers, numbers, tables, text), copied verbatim." },
  { heading: "Worklog", hint: "A terse, step-by-step record of what was done." },
];

export const TEMPLATE = `${SECTIONS.map((s) => `# ${s.heading}\n_${s.hint}_\n`).join("\n")}`;

export type Section = { heading: string; hint: string; body: string };

/** Splits a notes file into sections at `# ` headings; text before the first heading is dropped. Pure. */
export function parseNotes(text: string): Section[] {
  const out: Section[] = [];
  let cur: { heading: string; lines: string[] } | null = null;
  const close = () => {
    if (!cur) return;
    const [first, ...rest] = cur.lines;
    const hinted = first !== undefined && /^_.*_\s*$/.test(first.trim());
    out.push({ heading: cur.heading, hint: hinted ? first!.trim().slice(1, -1) : "", body: (hinted ? rest : cur.lines).join("\n").trim() });
  };
  for (const line of text.split("\n")) {
    const h = /^# (.+?)\s*$/.exec(line);
    if (h) {
      close();
      cur = { heading: h[1]!, lines: [] };
    } else if (cur) cur.lines.push(line);
  }
  close();
  return out;
}

export function renderNotes(sections: Section[]): string {
  return `${sections.map((s) => `# ${s.heading}\n${s.hint ? `_${s.hint}_\n` : ""}${s.body ? `${s.body}\n` : ""}`).join("\n")}`;
}

/** Whether the notes still say nothing beyond the template. */
export const isEmptyNotes = (text: string): boolean => parseNotes(text).every((s) => !s.body);

/**
 * Replaces the content of the named sections, leaving headings and hint lines alone. Unknown headings are
 * reported, not added. Pure; never throws.
 */
export function applyUpdates(text: string, updates: Array<{ section: string; content: string }>): { text: string; unknown: string[]; changed: string[] } {
  const sections = parseNotes(text);
  const unknown: string[] = [];
  const changed: string[] = [];
  for (const u of updates) {
    const key = u.section.replace(/^#+\s*/, "").trim().toLowerCase();
    const s = sections.find((x) => x.heading.toLowerCase() === key);
    if (!s) {
      unknown.push(u.section);
      continue;
    }
    s.body = u.content.trim();
    changed.push(s.heading);
  }
  return { text: renderNotes(sections), unknown, changed };
}

/** Per-section size in tokens (characters / 4), for the budget reminders. */
export const sectionTokens = (s: Section): number => Math.ceil(s.body.length / 4);

export const SECTION_MAX_TOKENS = 2000;
export const NOTES_MAX_TOKENS = 12_000;

/**
 * The notes as a compaction summary: empty sections left out, each section cut at a line boundary to
 * about 2000 tokens, with a pointer to the full file when anything was cut. Pure.
 */
export function notesForCompaction(text: string, path: string): string {
  const max = SECTION_MAX_TOKENS * 4;
  let cut = false;
  const parts: string[] = [];
  for (const s of parseNotes(text)) {
    if (!s.body) continue;
    let body = s.body;
    if (body.length > max) {
      const at = body.lastIndexOf("\n", max);
      body = `${body.slice(0, at > 0 ? at : max)}\n[... section cut for length ...]`;
      cut = true;
    }
    parts.push(`# ${s.heading}\n${body}`);
  }
  if (cut) parts.push(`Some sections were cut; the full session notes are in ${path} (read it when a detail is missing).`);
  return parts.join("\n\n");
}
