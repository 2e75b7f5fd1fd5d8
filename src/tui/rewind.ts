import type { Runtime } from "../cli/compose.ts";
import { conversationFromEntries, loadTranscript, userPromptText } from "../session/index.ts";
import type { Screen } from "./screen.ts";
import { style } from "./theme.ts";

/**
 * Rewind from the screen (Esc twice on an empty input, or /rewind): pick one of this session's prompts, then put
 * the code back (file checkpoints, issue 7), the conversation (the next prompt continues from just before it, as
 * `--resume-session-at` does: the transcript keeps every line, the chain forks), or both. Returns the picked
 * prompt's text for the input, or null. Never throws: failures are lines on the screen.
 */
export async function rewindFromScreen(rt: Runtime, screen: Screen): Promise<string | null> {
  const path = rt.transcript.store.path;
  if (!path) {
    screen.add(style.yellow("  Rewind needs the transcript, and this session keeps none (--no-session-persistence)."));
    return null;
  }
  const loaded = loadTranscript(path);
  const prompts = loaded.entries.flatMap((e) => {
    const text = userPromptText(e);
    return text === null ? [] : [{ entry: e, text }];
  });
  if (!prompts.length) {
    screen.add(style.gray("  Nothing to rewind yet."));
    return null;
  }
  const picked = await screen.choose(
    style.bold("Rewind to before which prompt?"),
    prompts
      .slice(-30)
      .reverse()
      .map((p) => ({ value: p.entry.uuid, label: p.text.replace(/\s+/g, " ").slice(0, 70), description: p.entry.timestamp.slice(11, 19) })),
  );
  if (picked === null) return null;
  const target = prompts.find((p) => p.entry.uuid === picked)!;
  const what = await screen.choose(style.bold("Restore what?"), [
    ...(rt.checkpoints ? [{ value: "both", label: "Code and conversation" }] : []),
    { value: "conversation", label: "Conversation only" },
    ...(rt.checkpoints ? [{ value: "code", label: "Code only" }] : []),
    { value: "cancel", label: "Never mind" },
  ]);
  if (what === null || what === "cancel") return null;
  if ((what === "both" || what === "code") && rt.checkpoints) {
    const r = await rt.checkpoints.rewindFiles(picked);
    for (const p of r.restored) screen.add(style.gray(`  restored ${p}`));
    for (const p of r.deleted) screen.add(style.gray(`  deleted ${p}`));
    for (const e of r.errors) screen.add(style.red(`  ${e}`));
    if (!r.restored.length && !r.deleted.length && !r.errors.length) screen.add(style.gray("  No file was changed from that prompt on."));
  }
  if (what === "both" || what === "conversation") {
    const parent = target.entry.parentUuid ?? null;
    const conv = parent ? conversationFromEntries(loaded.entries, { meta: loaded.meta, leafUuid: parent }) : { messages: [], lastUuid: null };
    rt.convo.messages.splice(0, rt.convo.messages.length, ...conv.messages);
    rt.transcript.setLastUuid(conv.lastUuid);
    screen.add(style.gray("  Conversation rewound: the next prompt continues from before that one."));
  }
  return target.text;
}
