import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { redactSecrets, scanMemoryFiles, type Message, type Plugin, type PluginHost } from "yoke";
import { createCoalescer } from "../shared/coalesce.ts";
import { conversationText, countVisibleMessages, indexAfter, wroteInto } from "../shared/conversation-text.ts";
import { switchedOn } from "../shared/switch.ts";
import { changedFiles, EXTRACTION_SYSTEM, extractionPrompt, fingerprint } from "./prompt.ts";

export { EXTRACTION_MARKER, EXTRACTION_SYSTEM } from "./prompt.ts";

/** Off in `-p` runs unless switched on, as in Claude Code (every extraction is an extra model call); on by default in the interactive session. */
export const EXTRACTION_DEFAULT_ON = false;
export const EXTRACTION_MAX_TURNS = 5;
export const EXTRACTION_TOOLS = ["Read", "Grep", "Glob", "Bash", "Write", "Edit"];

/**
 * `YOKE_MEMORY_EXTRACTION=0|1` wins over the `memoryExtraction` setting, which wins over the default (on in the
 * interactive session, off in `-p`); auto memory off (no memory dir) means off.
 */
export function extractionEnabled(host: Pick<PluginHost, "env" | "settings" | "session">): boolean {
  if (!host.session.memoryDir) return false;
  return switchedOn(host.env.YOKE_MEMORY_EXTRACTION, host.settings.memoryExtraction, EXTRACTION_DEFAULT_ON || host.session.interactive);
}

export type Extraction = {
  /** What the Stop hook does: schedule a run in host.background unless there is nothing to do. */
  onTurnEnd(): void;
  /** Runs (or joins) an extraction now; settles when the covering run has finished. Never rejects. */
  request(): Promise<void>;
  /** How many forks were started (for tests and --debug). */
  runs(): number;
};

/**
 * Background memory extraction (internals §3) through PluginHost only. A run looks at the messages since
 * the last successful run, skips them when the main agent already wrote into the memory directory, and
 * otherwise asks a forked agent (≤5 turns, writes confined to the memory directory) to save what lasts.
 * Never throws; failures are logged with the plugin's name and the same messages are tried again next time.
 */
export function createExtraction(host: PluginHost): Extraction {
  let cursor: Message | null = null;
  let started = 0;

  const runOnce = async () => {
    const dir = host.session.memoryDir;
    if (!dir) return;
    const all = host.session.messages();
    const fresh = all.slice(indexAfter(all, cursor));
    const last = all[all.length - 1] ?? null;
    if (countVisibleMessages(fresh) === 0) return;
    if (wroteInto(fresh, dir)) {
      host.log.debug("the main agent wrote memory itself in this turn; no extraction");
      cursor = last;
      return;
    }
    const before = fingerprint(dir);
    const indexPath = join(dir, "MEMORY.md");
    const index = existsSync(indexPath) ? readFileSync(indexPath, "utf8") : null;
    started++;
    const res = await host.agents.fork({
      name: "memory-extraction",
      system: EXTRACTION_SYSTEM,
      prompt: extractionPrompt({ dir, memories: scanMemoryFiles(dir), index, conversation: conversationText(fresh), count: fresh.length }),
      tools: EXTRACTION_TOOLS,
      maxTurns: EXTRACTION_MAX_TURNS,
      writeDirs: [dir],
      readOnlyBash: true,
    });
    const after = fingerprint(dir);
    const changed = changedFiles(before, after);
    // The prompt forbids secrets; this makes sure none that slipped through stays on disk.
    for (const rel of [...after.keys()].filter((k) => before.get(k) !== after.get(k))) scrub(join(dir, rel));
    // A failed run leaves the cursor, so the same messages are considered again; a run that wrote counts as done.
    if (!res.isError || changed.length) cursor = last;
    if (res.isError) host.log.warn(`extraction ended with an error after ${res.numTurns} turn(s): ${res.text.slice(0, 200)}`);
    if (changed.length) host.notify(`Memory updated: ${changed.join(", ")} (in ${dir})`);
  };

  const scrub = (file: string) => {
    try {
      const r = redactSecrets(readFileSync(file, "utf8"));
      if (!r.count) return;
      writeFileSync(file, r.text);
      host.log.warn(`removed ${r.count} credential-like value(s) from ${file}`);
    } catch (err) {
      host.log.warn(`could not check ${file} for secrets: ${(err as Error).message}`);
    }
  };

  const coalescer = createCoalescer(runOnce, (err) => host.log.error(`extraction failed: ${(err as Error).message}`));
  return {
    onTurnEnd() {
      if (!extractionEnabled(host)) return;
      host.background("extract", () => coalescer.request());
    },
    request: () => coalescer.request(),
    runs: () => started,
  };
}

const memoryExtraction: Plugin = {
  name: "memory-extraction",
  version: "1.0.0",
  description: "Saves lasting facts from the conversation as auto-memory files after each turn; on by default in the interactive session; in -p only with memoryExtraction: true or YOKE_MEMORY_EXTRACTION=1",
  setup(host) {
    if (!extractionEnabled(host)) return;
    const ex = createExtraction(host);
    host.hooks.on("Stop", () => {
      ex.onTurnEnd();
    });
  },
};
export default memoryExtraction;
