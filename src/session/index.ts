/** The session module's public surface: transcript store, loading, listing, fork/rewind, checkpoints, local compaction. */
export { createSessionStore, subagentTranscriptPath, transcriptPath, type FileSessionStore, type SessionStoreOptions } from "./store.ts";
export {
  conversationFromEntries,
  INTERRUPTED_TOOL_RESULT,
  loadTranscript,
  resumeSettings,
  toApiMessages,
  type Conversation,
  type ConversationOptions,
  type LoadedTranscript,
} from "./load.ts";
export { findSession, formatSessionList, formatSessionShow, latestSession, listSessions, sessionRow, userPromptText, type FindResult, type SessionRow } from "./list.ts";
export { forkSession, rewindConversation, type ForkOptions, type RewindResult } from "./fork.ts";
export { createCheckpoints, type Checkpoint, type CheckpointOptions, type Checkpoints, type RewindFilesResult } from "./checkpoints.ts";
export {
  CLEARED_TOOL_OUTPUT,
  clearOldToolOutputs,
  COMPACTABLE_TOOLS,
  compactBoundaryEntry,
  compactBoundaryFields,
  estimateTokens,
  localCompactSummary,
  SUMMARY_PREAMBLE,
  summaryUserEntry,
  type LocalCompaction,
} from "./compact.ts";
export * from "./types.ts";
