import type { SlashCommand } from "./types.ts";

/**
 * Splits an argument string the way a shell would for plain words: whitespace separates, single and double
 * quotes group, a backslash escapes the next character. Pure.
 */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote: '"' | "'" | null = null;
  let has = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"' && i + 1 < s.length) cur += s[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (c === "\\" && i + 1 < s.length) {
      cur += s[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (cur || has) out.push(cur);
      cur = "";
      has = false;
    } else cur += c;
  }
  if (cur || has) out.push(cur);
  return out;
}

export type RenderVars = {
  sessionId: string;
  projectDir: string;
  effort?: string;
};

const ARG_PLACEHOLDER = /\$ARGUMENTS\b|\$\d+\b/;

/**
 * A skill's or command's body with its placeholders filled (contracts §6.2): `${CLAUDE_SKILL_DIR}`,
 * `${CLAUDE_PLUGIN_ROOT}`, `${CLAUDE_PLUGIN_DATA}`, `${CLAUDE_PROJECT_DIR}`, `${CLAUDE_SESSION_ID}`,
 * `${CLAUDE_EFFORT}`, `$ARGUMENTS[N]`, `$ARGUMENTS`, `$N` (0-based, as 2.1.332 counts: `$0` is the first
 * argument) and `$name` for `arguments:` names. With no argument placeholder, non-empty arguments are appended
 * as `ARGUMENTS: …`. Pure.
 */
export function substitute(body: string, cmd: Pick<SlashCommand, "baseDir" | "plugin" | "argNames">, args: string, v: RenderVars): string {
  const words = splitArgs(args);
  const env: Record<string, string | undefined> = {
    CLAUDE_SKILL_DIR: cmd.baseDir ?? undefined,
    CLAUDE_PLUGIN_ROOT: cmd.plugin?.root,
    CLAUDE_PLUGIN_DATA: cmd.plugin?.dataDir,
    CLAUDE_PROJECT_DIR: v.projectDir,
    CLAUDE_SESSION_ID: v.sessionId,
    CLAUDE_EFFORT: v.effort,
  };
  let out = body.replace(/\$\{(CLAUDE_[A-Z_]+)\}/g, (m, k: string) => env[k] ?? m);
  const named = cmd.argNames.length ? new RegExp(`\\$(${cmd.argNames.map((n) => n.replace(/[^\w-]/g, "")).filter(Boolean).join("|")})\\b`, "g") : null;
  const used = ARG_PLACEHOLDER.test(out) || (named ? new RegExp(named.source).test(out) : false);
  out = out
    .replace(/\$ARGUMENTS\[(\d+)\]/g, (_, n: string) => words[Number(n)] ?? "")
    .replace(/\$ARGUMENTS\b/g, () => args)
    .replace(/\$(\d+)\b/g, (_, n: string) => words[Number(n)] ?? "");
  if (named) out = out.replace(named, (_, n: string) => words[cmd.argNames.indexOf(n)] ?? "");
  if (!used && args.trim()) out = `${out.replace(/\s+$/, "")}\n\nARGUMENTS: ${args.trim()}`;
  return out;
}

/** A `!`-command in a body: `` !`cmd` `` inline, or a ```` ```! ```` fenced block. */
export type ShellSpan = { start: number; end: number; command: string };

/** The shell commands a body runs before it is sent, in order. Pure. */
export function shellSpans(body: string): ShellSpan[] {
  const spans: ShellSpan[] = [];
  for (const m of body.matchAll(/^```!\s*\n([\s\S]*?)\n```[ \t]*$/gm)) spans.push({ start: m.index!, end: m.index! + m[0].length, command: m[1]!.trim() });
  for (const m of body.matchAll(/(^|[\s(])!`([^`\n]+)`/g)) {
    const start = m.index! + m[1]!.length;
    if (spans.some((s) => start >= s.start && start < s.end)) continue;
    spans.push({ start, end: m.index! + m[0].length, command: m[2]!.trim() });
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** `@path` mentions in a body (not e-mail addresses, not `@server:uri` MCP mentions). Pure. */
export function fileMentions(body: string): string[] {
  const out: string[] = [];
  for (const m of body.matchAll(/(?:^|[\s(])@("[^"\n]+"|[^\s)`'"]+)/g)) {
    let p = m[1]!.replace(/^"|"$/g, "").replace(/[.,;:!?]+$/, "");
    if (!p || /^[A-Za-z0-9_.-]+:(?!\/)/.test(p) && !p.startsWith(".")) continue;
    if (!out.includes(p)) out.push(p);
  }
  return out;
}
