import { createCheckpoints, findSession, loadTranscript, rewindConversation, userPromptText } from "../../session/index.ts";
import { UsageError } from "../args.ts";
import { writeOut, writeErr } from "../../util/output.ts";

type Env = Record<string, string | undefined>;

const USAGE = "usage: yoke rewind ID [--to USER_UUID [--files|--conversation|--both] [--dry-run]] [--json]";

/**
 * `yoke rewind ID …` (issue 7, contracts §5.4): without --to, lists the session's user messages and
 * which have file checkpoints; with --to, puts files back (--files), shows how to continue the
 * conversation from before that message (--conversation), or both (default). The transcript is
 * never rewritten. Throws UsageError for bad arguments or an unknown session/message; returns 1
 * when some file could not be restored.
 */
export async function rewindCommand(argv: string[], o: { cwd?: string; env?: Env } = {}): Promise<number> {
  const cwd = o.cwd ?? process.cwd();
  const env = o.env ?? process.env;
  let id: string | undefined;
  let to: string | undefined;
  let files = false;
  let conversation = false;
  let dryRun = false;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--to") {
      to = argv[++i];
      if (!to) throw new UsageError(`--to needs a user message uuid. ${USAGE}`);
    } else if (a.startsWith("--to=")) to = a.slice(5);
    else if (a === "--files") files = true;
    else if (a === "--conversation") conversation = true;
    else if (a === "--both") files = conversation = true;
    else if (a === "--dry-run") dryRun = true;
    else if (a === "--json") json = true;
    else if (a.startsWith("-")) throw new UsageError(`unknown option ${a}. ${USAGE}`);
    else if (id === undefined) id = a;
    else throw new UsageError(`unexpected argument '${a}'. ${USAGE}`);
  }
  if (!id) throw new UsageError(`a session id is needed. ${USAGE}`);
  if (!files && !conversation) files = conversation = true;
  const found = findSession(id, cwd, env);
  if (!found.ok) throw new UsageError(found.error);
  const loaded = loadTranscript(found.path);
  for (const w of loaded.warnings) writeErr(`yoke: ${w}\n`);
  // Checkpoints act on the session's own directory (git snapshots live in its repository), not the caller's.
  const sessionCwd = loaded.entries.find((e) => typeof e.cwd === "string")?.cwd ?? cwd;
  const cps = createCheckpoints({ sessionId: found.id, cwd: sessionCwd, env, meta: loaded.meta, maxCheckpoints: Number.MAX_SAFE_INTEGER });
  const byUser = new Map(cps.list().map((c) => [c.userUuid, c]));

  if (to === undefined) {
    const rows = loaded.entries.flatMap((e) => {
      const text = userPromptText(e);
      if (text === null) return [];
      const cp = byUser.get(e.uuid);
      return [{ uuid: e.uuid, timestamp: e.timestamp, prompt: text.replace(/\s+/g, " ").trim(), files: cp?.files.length ?? 0, gitSnapshots: cp?.gitRefs.length ?? 0, checkpoint: !!cp }];
    });
    if (json) writeOut(`${JSON.stringify(rows, null, 2)}\n`);
    else if (rows.length === 0) writeOut(`Session ${found.id} has no user messages.\n`);
    else {
      writeOut(`User messages of session ${found.id} (rewind with: yoke rewind ${found.id} --to UUID):\n`);
      for (const r of rows) {
        const cp = r.checkpoint ? `checkpoint: ${r.files} file(s)${r.gitSnapshots ? `, ${r.gitSnapshots} git snapshot(s)` : ""}` : "no checkpoint";
        writeOut(`${r.uuid}  ${r.timestamp.slice(0, 19).replace("T", " ")}  [${cp}]  ${r.prompt.slice(0, 70)}\n`);
      }
    }
    return 0;
  }

  const conv = rewindConversation(found.path, to, loaded.entries);
  if (!conv.ok) throw new UsageError(conv.error);
  const out: Record<string, unknown> = { session: found.id, to, dryRun };
  let code = 0;
  const say = (s: string) => void (!json && writeOut(`${s}\n`));
  if (files) {
    const r = await cps.rewindFiles(to, { dryRun });
    out.files = r;
    if (!byUser.has(to)) say(`No file checkpoint for ${to}: no files were changed by tools from that message on.`);
    for (const p of r.restored) say(`${dryRun ? "would restore" : "restored"} ${p}`);
    for (const p of r.deleted) say(`${dryRun ? "would delete" : "deleted"} ${p}`);
    if (byUser.has(to) && r.restored.length + r.deleted.length === 0 && r.errors.length === 0) say("Files already match that point; nothing to do.");
    for (const e of r.errors.filter((e) => byUser.has(to) || !e.startsWith("no checkpoint"))) {
      writeErr(`yoke rewind: ${e}\n`);
      code = 1;
    }
  }
  if (conversation) {
    const leaf = conv.leafUuid;
    const command = leaf ? `yoke -p --resume ${found.id} --resume-session-at ${leaf} "…"` : null;
    out.conversation = { leafUuid: leaf, command };
    if (command) say(`Conversation: continue from just before that message with\n  ${command}`);
    else say("Conversation: that was the first message; start a new session to begin again from nothing.");
  }
  if (json) writeOut(`${JSON.stringify(out, null, 2)}\n`);
  return code;
}
