import type { ContentBlock, Message } from "../../src/provider/types.ts";

/** Plain helpers shared by the memory plugins. They use nothing but their arguments. */

const blocksOf = (m: Message): ContentBlock[] => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content);

const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max)} …[${s.length - max} more characters]`);

const resultText = (b: Extract<ContentBlock, { type: "tool_result" }>): string =>
  typeof b.content === "string" ? b.content : b.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");

/**
 * The conversation as plain text for a forked agent's prompt: user and assistant text in full, tool
 * calls and results clipped, injected context (system reminders: instruction files, memories) left out
 * because the fork either has it already or must not re-save it. Keeps the most recent `maxChars`.
 * Pure; never throws.
 */
export function conversationText(messages: readonly Message[], opts: { maxChars?: number; toolChars?: number } = {}): string {
  const toolChars = opts.toolChars ?? 600;
  const parts: string[] = [];
  for (const m of messages) {
    for (const b of blocksOf(m)) {
      if (b.type === "text") {
        const t = b.text.trim();
        if (!t || t.startsWith("<system-reminder>")) continue;
        parts.push(`${m.role === "user" ? "User" : "Assistant"}: ${t}`);
      } else if (b.type === "tool_use") parts.push(`Assistant called ${b.name}: ${clip(JSON.stringify(b.input), toolChars)}`);
      else if (b.type === "tool_result") parts.push(`${b.is_error ? "Tool error" : "Tool result"}: ${clip(resultText(b).trim(), toolChars)}`);
      else if (b.type === "image") parts.push(`${m.role === "user" ? "User" : "Assistant"}: [image]`);
    }
  }
  const text = parts.join("\n\n");
  const max = opts.maxChars ?? 60_000;
  return text.length <= max ? text : `[… earlier part left out …]\n\n${text.slice(text.length - max)}`;
}

/** User and assistant messages that carry something the model wrote or was told (tool plumbing and reminders aside). */
export function countVisibleMessages(messages: readonly Message[]): number {
  return messages.filter((m) =>
    blocksOf(m).some((b) => (b.type === "text" && b.text.trim() && !b.text.trimStart().startsWith("<system-reminder>")) || b.type === "tool_use"),
  ).length;
}

/** Write-capable file tools, by the names a transcript shows. */
export const FILE_WRITE_TOOLS = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);

export const isInside = (dir: string, p: string): boolean => {
  const d = dir.endsWith("/") ? dir : `${dir}/`;
  return p === dir || p === d.slice(0, -1) || p.startsWith(d);
};

/** Whether any assistant message wrote a file inside `dir` (the main agent saved memory itself). */
export function wroteInto(messages: readonly Message[], dir: string): boolean {
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const b of m.content) {
      if (b.type !== "tool_use" || !FILE_WRITE_TOOLS.has(b.name)) continue;
      const p = b.input.file_path ?? b.input.notebook_path;
      if (typeof p === "string" && isInside(dir, p)) return true;
    }
  }
  return false;
}

/** Where to pick up: just after `last` if it is still in the list, else (compaction replaced it) from the start. */
export function indexAfter(messages: readonly Message[], last: Message | null): number {
  if (!last) return 0;
  const i = messages.lastIndexOf(last);
  return i < 0 ? 0 : i + 1;
}

/**
 * Runs `work` once per burst of requests: a request while a run is going marks one trailing run, which
 * starts when the current one ends (later requests fold into it). The returned promise settles when the
 * run that covers this request has finished. Never rejects: `work` errors go to `onError`.
 */
export function createCoalescer(work: () => Promise<void>, onError: (err: unknown) => void) {
  let running: Promise<void> | null = null;
  let again = false;
  const loop = async () => {
    try {
      do {
        again = false;
        try {
          await work();
        } catch (err) {
          onError(err);
        }
      } while (again);
    } finally {
      running = null;
    }
  };
  return {
    request(): Promise<void> {
      if (running) {
        again = true;
        return running;
      }
      running = loop();
      return running;
    },
    /** The run in progress, if any. */
    current: (): Promise<void> | null => running,
  };
}

/** A boolean switch from the environment ("1"/"true"/"on" vs "0"/"false"/"off"), else the setting, else the default. */
export function switchedOn(envValue: string | undefined, setting: boolean | undefined, dflt: boolean): boolean {
  const v = envValue?.trim().toLowerCase();
  if (v === "1" || v === "true" || v === "on" || v === "yes") return true;
  if (v === "0" || v === "false" || v === "off" || v === "no") return false;
  return setting ?? dflt;
}

/** Credential shapes that must never land in a memory file (user-demand §20). */
const SECRET_PATTERNS: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bsk-ant-[A-Za-z0-9_-]{10,}/g,
  /\bsk-[A-Za-z0-9_-]{20,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
];
/** `password: hunter22`-style pairs: the name stays so the memory still reads sensibly. */
const SECRET_PAIR = /\b(password|passwd|secret|token|api[_-]?key)(\s*[:=]\s*)["']?[^\s"']{6,}["']?/gi;

/** Replaces credential-shaped text with [REDACTED]. Pure; returns how many were replaced. */
export function redactSecrets(text: string): { text: string; count: number } {
  let count = 0;
  let out = text;
  for (const re of SECRET_PATTERNS)
    out = out.replace(re, () => {
      count++;
      return "[REDACTED]";
    });
  out = out.replace(SECRET_PAIR, (_m, key: string, sep: string) => {
    count++;
    return `${key}${sep}[REDACTED]`;
  });
  return { text: out, count };
}
