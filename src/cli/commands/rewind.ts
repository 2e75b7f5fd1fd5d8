import { createCheckpoints, findSession, loadTranscript, rewindConversation, userPromptText } from "../../session/index.ts";
import { defineCommand } from "citty";
import { UsageError } from "../args.ts";
import { writeOut, writeErr } from "../../util/output.ts";
import { createDiagnostics } from "../../util/diagnostics.ts";

type Env = Record<string, string | undefined>;

type RewindArgs = { id?: string; to?: string; files: boolean; conversation: boolean; dryRun: boolean; json: boolean };

/**
 * `yoke rewind ID …` (issue 7, contracts §5.4): without --to, lists the session's user messages and
 * which have file checkpoints; with --to, puts files back (--files), shows how to continue the
 * conversation from before that message (--conversation), or both (default). The transcript is
 * never rewritten. Throws UsageError for bad arguments or an unknown session/message; returns 1
 * when some file could not be restored.
 */
async function rewindCommand(a: RewindArgs, o: { cwd?: string; env?: Env } = {}): Promise<number> {
  const cwd = o.cwd ?? process.cwd();
  const env = o.env ?? process.env;
  const { id, to, dryRun, json } = a;
  let { files, conversation } = a;
  if (!id) throw new UsageError("a session id is needed (see yoke sessions list).");
  if (!files && !conversation) files = conversation = true;
  const found = findSession(id, cwd, env);
  if (!found.ok) throw new UsageError(found.error);
  const loaded = loadTranscript(found.path);
  const log = createDiagnostics();
  for (const w of loaded.warnings) log.warn(w);
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

export const command = defineCommand({
  meta: { name: "rewind", description: "Restore files and/or show how to continue the conversation from before a user message" },
  args: {
    id: { type: "positional", required: false, description: "Session id or a unique prefix of it" },
    to: { type: "string", valueHint: "USER_UUID", description: "The user message to go back to (without it: list them)" },
    files: { type: "boolean", description: "Put files back only" },
    conversation: { type: "boolean", description: "Show how to continue the conversation only" },
    both: { type: "boolean", description: "Both (the default)" },
    "dry-run": { type: "boolean", description: "Say what would change, change nothing" },
    json: { type: "boolean", description: "Print JSON" },
  },
  run: ({ args }) => {
    if (args._.length > 1) throw new UsageError(`unexpected argument '${args._[1]}'`);
    if (args.to === "") throw new UsageError("--to needs a user message uuid");
    const both = !!args.both;
    return rewindCommand({ id: args.id, to: args.to, files: both || !!args.files, conversation: both || !!args.conversation, dryRun: !!args["dry-run"], json: !!args.json });
  },
});
