// The session's own modules that setupSession (session-wiring.ts) uses, not the session/index.ts barrel (which brings
// compaction): one module, required when a session is first set up, so the binary keeps them in one chunk (issue 21).
export { createSessionStore, transcriptPath } from "../session/store.ts";
export { conversationFromEntries, INTERRUPTED_TOOL_RESULT, loadTranscript, resumeSettings } from "../session/load.ts";
export { findSession, latestSession, listSessions } from "../session/list.ts";
export { forkSession } from "../session/fork.ts";
export { createCheckpoints } from "../session/checkpoints.ts";
