import { dirname, sep } from "node:path";
import { splitToolList } from "../permission/rule-parse.ts";
import { KEYWORDS, parseFrontmatter, simpleLines } from "../util/frontmatter.ts";
import type { ExtensionProblem, ExtensionSource, PluginOrigin, SlashCommand } from "./types.ts";

/**
 * What a skill's or command's file makes (contracts §6.2, §6.3): its entry, from the frontmatter fields and the role
 * discovery gives it (name, source, plugin, folder note), or a problem naming the file and line. Two ways to the same
 * entry: simpleEntry for the commonest block (`key: value` lines only), in one pass with few calls, since start-up
 * runs it for every file with the JIT held back (issue 14 point 7, the first start); extensionEntry for any file.
 */

/** Everything besides the file that goes into its entry. */
export type FileRole = { kind: "skill" | "command"; name: string; aliases?: string[]; source: ExtensionSource; plugin?: PluginOrigin; note?: string };

/** The frontmatter fields an entry is made of, as the YAML reader gives them (anything, or undefined when absent). */
type Fields = {
  description: unknown;
  arguments: unknown;
  allowedTools: unknown;
  disableModelInvocation: unknown;
  /** `hide-from-slash-command-tool`, the older spelling, still in published plugins. */
  hideFromSlashCommandTool: unknown;
  userInvocable: unknown;
  whenToUse: unknown;
  /** `when-to-use`, read when `when_to_use` says nothing. */
  whenToUseDashed: unknown;
  argumentHint: unknown;
  model: unknown;
  hooks: unknown;
  context: unknown;
  agent: unknown;
};

const bool = (v: unknown): boolean | undefined => (v === true || v === "true" ? true : v === false || v === "false" ? false : undefined);
const str = (v: unknown): string | undefined => {
  if (typeof v === "string") {
    const t = v.trim();
    return t || undefined;
  }
  return typeof v === "number" ? String(v) : undefined;
};
const list = (v: unknown): string[] =>
  typeof v === "string" ? splitToolList([v]) : Array.isArray(v) ? splitToolList(v.filter((x): x is string => typeof x === "string")) : [];

/** Whitespace runs (newlines included) as one space; only when there is any to collapse. */
const oneLine = (s: string | undefined): string | undefined => (s === undefined || !/\s\s|[\t\n\r\f\v]/.test(s) ? s : s.replace(/\s+/g, " ").trim());

/** The first line of text in a body, for a command without a `description` (contracts §6.3). */
function firstLine(body: string): string {
  for (const line of body.split("\n")) {
    const t = line.replace(/^#+\s*/, "").trim();
    if (t) return t.length > 200 ? `${t.slice(0, 197)}...` : t;
  }
  return "";
}

/** A skill's folder: its SKILL.md's, without a call into path for the usual name. */
const SKILL_FILE = `${sep}SKILL.md`;
export const skillDir = (file: string): string => (file.endsWith(SKILL_FILE) ? file.slice(0, -SKILL_FILE.length) : dirname(file));

/** `${CLAUDE_PLUGIN_ROOT}` and its kin in a granted rule: `Bash(${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh:*)` names the plugin's own script (ralph-loop does). */
function placeholders(rules: string[], o: FileRole, baseDir: string | null): string[] {
  return rules.map((r) =>
    !r.includes("${")
      ? r
      : r.replace(/\$\{CLAUDE_(PLUGIN_ROOT|PLUGIN_DATA|SKILL_DIR)\}/g, (m, k: string) =>
          (k === "PLUGIN_ROOT" ? o.plugin?.root : k === "PLUGIN_DATA" ? o.plugin?.dataDir : (baseDir ?? undefined)) ?? m,
        ),
  );
}

/** The entry the fields make: the one place that says what each field means. Absent fields cost no call. */
function assemble(file: string, o: FileRole, f: Fields, body: string): SlashCommand {
  // One line, as the listing, the `/` menu and system/init show it (a folded YAML description has newlines).
  const description = oneLine(str(f.description)) ?? firstLine(body);
  const baseDir = o.kind === "skill" ? skillDir(file) : null;
  const cmd: SlashCommand = {
    name: o.name,
    aliases: o.aliases ?? [],
    kind: o.kind,
    source: o.source,
    file,
    baseDir,
    ...(o.plugin ? { plugin: o.plugin } : {}),
    description: o.note ? `${description} ${o.note}`.trim() : description,
    argNames: f.arguments === undefined ? [] : list(f.arguments),
    allowedTools: f.allowedTools === undefined ? [] : typeof f.allowedTools === "string" && !f.allowedTools.includes("${") ? list(f.allowedTools) : placeholders(list(f.allowedTools), o, baseDir),
    disableModelInvocation: bool(f.disableModelInvocation) ?? bool(f.hideFromSlashCommandTool) ?? false,
    userInvocable: bool(f.userInvocable) ?? true,
  };
  if (f.whenToUse !== undefined || f.whenToUseDashed !== undefined) {
    const whenToUse = oneLine(str(f.whenToUse) ?? str(f.whenToUseDashed));
    if (whenToUse) cmd.whenToUse = whenToUse;
  }
  const hint = f.argumentHint === undefined ? undefined : str(f.argumentHint);
  if (hint) cmd.argumentHint = hint;
  const model = f.model === undefined ? undefined : str(f.model);
  if (model && model !== "inherit") cmd.model = model;
  if (f.hooks && typeof f.hooks === "object") cmd.hooks = f.hooks;
  if (f.context !== undefined && str(f.context) === "fork") cmd.fork = str(f.agent) ? { agent: str(f.agent) } : {};
  return cmd;
}

/**
 * What a file's text makes in its role: its entry, or a problem naming the file (and line). Never throws. `fast`
 * false reads the frontmatter with the YAML library alone (the tests' reference for the fast readers).
 */
export function extensionEntry(file: string, o: FileRole, text: string, fast = true): SlashCommand | ExtensionProblem {
  const fm = parseFrontmatter(text, { fast, loose: true });
  if (fm.error) return { file: fm.error.line ? `${file}:${fm.error.line}` : file, message: `${fm.error.message} (not loaded)` };
  const f = fm.data ?? {};
  return assemble(
    file,
    o,
    {
      description: f.description,
      arguments: f.arguments,
      allowedTools: f["allowed-tools"],
      disableModelInvocation: f["disable-model-invocation"],
      hideFromSlashCommandTool: f["hide-from-slash-command-tool"],
      userInvocable: f["user-invocable"],
      whenToUse: f.when_to_use,
      whenToUseDashed: f["when-to-use"],
      argumentHint: f["argument-hint"],
      model: f.model,
      hooks: f.hooks,
      context: f.context,
      agent: f.agent,
    },
    fm.body,
  );
}

/**
 * The same entry as extensionEntry, for a file whose frontmatter is a SIMPLE_BLOCK (frontmatter.ts: `key: value` lines
 * only), read straight into the fields: one match, one split and a switch, no mapping of every key first (on a first
 * start with the JIT held back, 150 files cost 1.6 → 0.8 ms of CPU this way, bench/extensions.ts). Null for any other
 * file (and for a key written twice), which extensionEntry then reads.
 */
export function simpleEntry(file: string, o: FileRole, text: string): SlashCommand | null {
  const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const s = simpleLines(t);
  if (!s) return null;
  const { parts, loose } = s;
  const f: Fields = {
    description: undefined,
    arguments: undefined,
    allowedTools: undefined,
    disableModelInvocation: undefined,
    hideFromSlashCommandTool: undefined,
    userInvocable: undefined,
    whenToUse: undefined,
    whenToUseDashed: undefined,
    argumentHint: undefined,
    model: undefined,
    hooks: undefined,
    context: undefined,
    agent: undefined,
  };
  const seen: Record<string, true> = {};
  for (let i = 1; i < parts.length; i += 3) {
    const k = parts[i]!;
    // As simpleBlock: a key twice (or `__proto__`, or a key such as `constructor`) is left to extensionEntry.
    if (k in seen) return null;
    seen[k] = true;
    const w = parts[i + 1]!;
    const v = loose || !(w in KEYWORDS) ? w : KEYWORDS[w];
    switch (k) {
      case "description": f.description = v; break;
      case "arguments": f.arguments = v; break;
      case "allowed-tools": f.allowedTools = v; break;
      case "disable-model-invocation": f.disableModelInvocation = v; break;
      case "hide-from-slash-command-tool": f.hideFromSlashCommandTool = v; break;
      case "user-invocable": f.userInvocable = v; break;
      case "when_to_use": f.whenToUse = v; break;
      case "when-to-use": f.whenToUseDashed = v; break;
      case "argument-hint": f.argumentHint = v; break;
      case "model": f.model = v; break;
      case "hooks": f.hooks = v; break;
      case "context": f.context = v; break;
      case "agent": f.agent = v; break;
    }
  }
  return assemble(file, o, f, t.slice(s.end));
}
