import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { parseFrontmatter } from "../util/frontmatter.ts";
import { projectDirs, readHead } from "./discover.ts";
import type { ExtensionProblem, PluginOrigin } from "./types.ts";

/**
 * An output style (contracts §6.5): text added at the end of the system prompt; unless it keeps the coding
 * instructions, yoke's software-engineering guidance ("How to work") is left out.
 */
export type OutputStyle = {
  name: string;
  description: string;
  prompt: string;
  keepCodingInstructions: boolean;
  /** Where it was defined: `built-in`, a file, or `plugin:<name>`. */
  source: string;
  /** `force-for-plugin`: applies whenever its plugin is on. */
  forced?: boolean;
};

// Our own wording (DESIGN: never Claude Code's prompt texts), to the same contract.
const BUILT_IN: OutputStyle[] = [
  {
    name: "Explanatory",
    description: "Explains the reasoning and the codebase while doing the work",
    keepCodingInstructions: true,
    source: "built-in",
    prompt:
      "Besides doing the task, help the user understand it. Before and after a change, add a short insight block:\n" +
      "`Insight ─────────────`\n2-3 points about why this approach, how this part of the codebase works, or a trade-off worth knowing\n`──────────────────────`\n" +
      "Keep insights specific to this code and this change, not general programming advice; keep them in the conversation, never in the code.",
  },
  {
    name: "Learning",
    description: "Works with the user as a pair, leaving small meaningful pieces for them to write",
    keepCodingInstructions: true,
    source: "built-in",
    prompt:
      "Work as a teaching pair programmer. Do the routine parts yourself, but where a piece of 2-10 lines carries a real design decision (a condition, a data shape, an error policy), " +
      "leave it for the user: put a `TODO(human)` comment at that spot, explain in the conversation what it must do and which trade-offs matter, and stop so they can write it. " +
      "Leave at most one such piece at a time. Add short insight notes about why the code is shaped as it is.",
  },
  {
    name: "Concise",
    description: "Fewest words: results and the facts needed to act on them",
    keepCodingInstructions: true,
    source: "built-in",
    prompt: "Answer in as few words as the task allows: the result first, then only what the user needs to act on it. No preamble, no recap, no lists of what you are about to do.",
  },
  {
    name: "Proactive",
    description: "Carries routine follow-up work through without stopping to ask",
    keepCodingInstructions: true,
    source: "built-in",
    prompt:
      "Carry the task through: when the next step is routine and safe (run the tests, fix the lint error you caused, update the import you broke), do it without asking. " +
      "Ask only when a choice changes the outcome or the action is hard to undo.",
  },
];

const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);
const bool = (v: unknown) => v === true || v === "true";

function readStyles(dir: string, source: (file: string) => string, problems: ExtensionProblem[], plugin?: PluginOrigin): OutputStyle[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".md")).sort();
  } catch {
    return [];
  }
  const out: OutputStyle[] = [];
  for (const n of names) {
    const file = join(dir, n);
    let text: string;
    try {
      text = readHead(file);
    } catch (e) {
      problems.push({ file, message: `cannot read: ${(e as Error).message}` });
      continue;
    }
    const fm = parseFrontmatter(text, { fast: true, loose: true });
    if (fm.error) {
      problems.push({ file: fm.error.line ? `${file}:${fm.error.line}` : file, message: `${fm.error.message} (output style not loaded)` });
      continue;
    }
    const f = fm.data ?? {};
    const name = str(f.name) ?? basename(n, ".md");
    out.push({
      name: plugin ? `${plugin.name}:${name}` : name,
      description: str(f.description) ?? "",
      prompt: fm.body.trim(),
      keepCodingInstructions: bool(f["keep-coding-instructions"]),
      source: source(file),
      ...(plugin && bool(f["force-for-plugin"]) ? { forced: true } : {}),
    });
  }
  return out;
}

export type OutputStyleOptions = {
  cwd: string;
  userDir: string;
  managedDir?: string;
  plugins: Array<{ plugin: PluginOrigin; dirs: string[] }>;
  project?: boolean;
  user?: boolean;
};

/** Every output style: built-in, then plugin, user, project and managed (a later one replaces one of the same name). Never throws. */
export function discoverOutputStyles(o: OutputStyleOptions): { styles: OutputStyle[]; problems: ExtensionProblem[] } {
  const problems: ExtensionProblem[] = [];
  const byName = new Map<string, OutputStyle>();
  const put = (list: OutputStyle[]) => list.forEach((s) => byName.set(s.name.toLowerCase(), s));
  put(BUILT_IN);
  for (const p of o.plugins) for (const d of p.dirs) put(readStyles(d, () => `plugin:${p.plugin.name}`, problems, p.plugin));
  if (o.user !== false) put(readStyles(join(o.userDir, "output-styles"), (f) => f, problems));
  if (o.project !== false) for (const d of projectDirs(o.cwd).reverse()) put(readStyles(join(d, ".claude", "output-styles"), (f) => f, problems));
  if (o.managedDir) put(readStyles(join(o.managedDir, ".claude", "output-styles"), (f) => f, problems));
  return { styles: [...byName.values()], problems };
}

/**
 * The style a session runs with: a plugin style that forces itself, else the `outputStyle` setting (names
 * compared without case; `default` or unset means none). An unknown name is a problem naming the setting, and
 * the default applies. Pure.
 */
export function selectOutputStyle(styles: OutputStyle[], setting: string | undefined): { style: OutputStyle | null; problem?: string } {
  const forced = styles.find((s) => s.forced);
  if (forced) return { style: forced };
  if (!setting || setting.toLowerCase() === "default") return { style: null };
  const hit = styles.find((s) => s.name.toLowerCase() === setting.toLowerCase());
  if (hit) return { style: hit };
  return { style: null, problem: `settings: outputStyle "${setting}" names no output style (known: default, ${styles.map((s) => s.name).join(", ")}); the default applies` };
}
