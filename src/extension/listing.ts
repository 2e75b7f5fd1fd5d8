import { MAX_LISTED_DESCRIPTION } from "./discover.ts";
import type { SlashCommand } from "./types.ts";

/** Claude Code gives the skill listing about 1% of the context window (contracts §6.2); ~4 characters a token. */
export const listingBudgetChars = (contextWindow: number, fraction = 0.01): number => Math.max(1, Math.floor(contextWindow * 4 * fraction));

/** What the listing may take in all (characters) and what one description may (its own cap). */
export type ListingLimits = { budget: number; maxDescription: number };

/**
 * The listing's limits as Claude Code 2.1.332 sets them (observed; contracts §6.2 gives the defaults):
 * `SLASH_COMMAND_TOOL_CHAR_BUDGET` characters when that variable holds a positive number, else the context window ×
 * 4 characters × the `skillListingBudgetFraction` setting (0 < f ≤ 1, default 0.01); each description cut at the
 * `skillListingMaxDescChars` setting (a positive integer, default 1536). A value out of range is said once, naming
 * the variable or the key, and the default used. Pure but for `warn`.
 */
export function listingLimits(o: { contextWindow: number; env: Record<string, string | undefined>; settings: Record<string, unknown>; warn: (m: string) => void }): ListingLimits {
  let maxDescription = MAX_LISTED_DESCRIPTION;
  const cap = o.settings.skillListingMaxDescChars;
  if (cap !== undefined) {
    if (typeof cap === "number" && Number.isInteger(cap) && cap > 0) maxDescription = cap;
    else o.warn(`settings: field "skillListingMaxDescChars": expected a positive integer, got ${JSON.stringify(cap)} (using ${MAX_LISTED_DESCRIPTION})`);
  }
  const raw = o.env.SLASH_COMMAND_TOOL_CHAR_BUDGET;
  if (raw !== undefined && raw.trim() !== "") {
    const n = Number(raw.trim());
    if (Number.isFinite(n) && n >= 1) return { budget: Math.floor(n), maxDescription };
    o.warn(`SLASH_COMMAND_TOOL_CHAR_BUDGET: expected a positive number of characters, got "${raw}" (ignored)`);
  }
  let fraction = 0.01;
  const f = o.settings.skillListingBudgetFraction;
  if (f !== undefined) {
    if (typeof f === "number" && f > 0 && f <= 1) fraction = f;
    else o.warn(`settings: field "skillListingBudgetFraction": expected a number above 0 and at most 1, got ${JSON.stringify(f)} (using 0.01)`);
  }
  return { budget: listingBudgetChars(o.contextWindow, fraction), maxDescription };
}

/** Descriptions arrive on one line (discovery collapses their whitespace), so this is concatenation only. */
const describe = (c: SlashCommand, cap: number): string => {
  const d = c.whenToUse ? `${c.description} - ${c.whenToUse}` : c.description;
  return d.length > cap ? `${d.slice(0, cap - 1)}…` : d;
};

const HEAD =
  "# Skills\nThese skills and commands can be loaded with the Skill tool (skill: the name below; args: the arguments, if any). " +
  "When a task matches one's description, call Skill first: its full instructions are loaded only then.";

/**
 * The names and descriptions the model sees (seed 000: descriptions in context, bodies on use), within `budget`
 * characters: every description in full when they fit, else each cut to an equal share, else names alone, else
 * as many names as fit and a count of the rest. Only model-invocable entries. Pure.
 */
export function skillListing(commands: SlashCommand[], budget: number, maxDescription = MAX_LISTED_DESCRIPTION): string | null {
  // The usual case in one loop, no callback or object per entry (it runs before the first request with the JIT held
  // back: issue 14 point 7): every description in full, when they fit. `used` counts as cutListing's total() does.
  const lines: string[] = [HEAD];
  let used = HEAD.length + 1;
  for (let i = 0; i < commands.length; i++) {
    const c = commands[i]!;
    if (c.disableModelInvocation) continue;
    const desc = describe(c, maxDescription);
    lines.push(desc ? `- ${c.name}: ${desc}` : `- ${c.name}`);
    used += 3 + c.name.length + (desc ? 2 + desc.length : 0);
  }
  if (lines.length === 1) return null;
  if (used <= budget) return lines.join("\n");
  return cutListing(commands.filter((c) => !c.disableModelInvocation), budget, maxDescription);
}

/** The listing when the descriptions in full do not fit: each cut to an equal share, else names alone, else a count. */
function cutListing(shown: SlashCommand[], budget: number, maxDescription: number): string {
  const full = shown.map((c) => ({ name: c.name, desc: describe(c, maxDescription) }));
  const line = (name: string, desc: string) => (desc ? `- ${name}: ${desc}` : `- ${name}`);
  // Arithmetic, not strings: "- name: desc\n" is 2 + name + (desc ? 2 + desc : 0) + 1 characters.
  const total = (cap: number) => {
    let n = HEAD.length + 1;
    for (const e of full) {
      const d = Math.min(e.desc.length, cap);
      n += 3 + e.name.length + (d > 0 ? 2 + d : 0);
    }
    return n;
  };
  const names = total(0);
  const share = Math.floor((budget - names) / full.length) - 2; // ": "
  if (share >= 20) return [HEAD, ...full.map((e) => line(e.name, e.desc.length > share ? `${e.desc.slice(0, share - 1)}…` : e.desc))].join("\n");
  const lines: string[] = [HEAD];
  let used = HEAD.length;
  for (const [i, e] of full.entries()) {
    const l = line(e.name, "");
    if (used + l.length + 60 > budget) {
      lines.push(`- … and ${full.length - i} more (call Skill with a name to load it)`);
      break;
    }
    lines.push(l);
    used += l.length + 1;
  }
  return lines.join("\n");
}

/** One invoked skill, remembered for re-injection after compaction. */
export type InvokedSkill = { name: string; path: string; content: string };

/** internals §6.4: each cut to 5,000 tokens, 25,000 in all, most recent first. */
const PER_SKILL_CHARS = 5_000 * 4;
const TOTAL_CHARS = 25_000 * 4;

/** The bodies of skills invoked in the session, for the context after compaction (seed 000 step 5), or null. Pure. */
export function reinjectedSkills(invoked: InvokedSkill[]): string | null {
  const parts: string[] = [];
  let used = 0;
  const seen = new Set<string>();
  for (const s of [...invoked].reverse()) {
    if (seen.has(s.name)) continue;
    seen.add(s.name);
    let content = s.content.length > PER_SKILL_CHARS ? `${s.content.slice(0, PER_SKILL_CHARS)}\n[... the rest of this skill was cut; call Skill again to load it whole]` : s.content;
    if (used + content.length > TOTAL_CHARS) {
      const left = TOTAL_CHARS - used;
      if (left < 500) break;
      content = `${content.slice(0, left)}\n[... cut]`;
    }
    used += content.length;
    parts.push(`### Skill: ${s.name}\nPath: ${s.path}\n\n${content}`);
  }
  if (!parts.length) return null;
  return `<system-reminder>\nSkills used earlier in this session, as they were loaded (still in force):\n\n${parts.join("\n\n---\n\n")}\n</system-reminder>`;
}
