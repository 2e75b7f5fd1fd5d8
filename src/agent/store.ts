import { randomBytes } from "../util/random.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Agent ids look like Claude Code's (`a` + 16 hex digits, contracts §5.1). */
export const newAgentId = (): string => `a${randomBytes(8).toString("hex")}`;

/** `<session dir>/subagents/agent-<id>.jsonl`, the sidechain transcript (contracts §5.1). */
export const subagentTranscriptPath = (sessionDir: string, agentId: string): string =>
  join(sessionDir, "subagents", `agent-${agentId}.jsonl`);

/** `<session dir>/subagents/agent-<id>.meta.json` beside the transcript. */
export const subagentMetaPath = (sessionDir: string, agentId: string): string =>
  join(sessionDir, "subagents", `agent-${agentId}.meta.json`);

/** `<session dir>/agents/`: claw-code's agent store (seed 002), one `{id}.json` + `{id}.md` per run. */
export const agentStoreDir = (sessionDir: string): string => join(sessionDir, "agents");

/** Contents of agent-<id>.meta.json (contracts §5.1 field names). */
export type SubagentMeta = {
  agentType: string;
  description: string;
  toolUseId: string;
  spawnDepth: number;
  model: string;
  finished: boolean;
  startedAt: string;
  finishedAt?: string;
  status?: AgentStatus;
};

export type AgentStatus = "running" | "completed" | "failed" | "interrupted" | "max_turns";

/** The `{agent_id}.json` manifest (claw-code's field names). */
export type AgentManifest = {
  agentId: string;
  description: string;
  subagentType: string;
  model: string;
  status: AgentStatus;
  prompt: string;
  outputFile: string;
  manifestFile: string;
  transcriptFile: string | null;
  createdAt: string;
  completedAt: string;
  totalDurationMs: number;
  totalTokens: number;
  totalToolUseCount: number;
  error: string | null;
};

/** Writes a file, creating its folder. Returns null, or the failure naming the file. Never throws. */
function writeText(path: string, text: string): string | null {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return null;
  } catch (e) {
    return `cannot write ${path}: ${(e as Error).message}`;
  }
}

export const writeSubagentMeta = (sessionDir: string, agentId: string, meta: SubagentMeta): string | null =>
  writeText(subagentMetaPath(sessionDir, agentId), `${JSON.stringify(meta, null, 2)}\n`);

/**
 * Saves a finished run as `{agent_id}.json` (manifest) and `{agent_id}.md` (readable report).
 * Returns the failures (empty when both were written). Never throws.
 */
export function writeAgentStore(
  sessionDir: string,
  m: Omit<AgentManifest, "outputFile" | "manifestFile">,
  resultText: string,
): { manifest: AgentManifest; errors: string[] } {
  const dir = agentStoreDir(sessionDir);
  const manifest: AgentManifest = { ...m, outputFile: join(dir, `${m.agentId}.md`), manifestFile: join(dir, `${m.agentId}.json`) };
  const md = [
    `# ${m.description}`,
    "",
    `- Agent: ${m.agentId} (${m.subagentType})`,
    `- Model: ${m.model}`,
    `- Status: ${m.status}${m.error ? ` (${m.error})` : ""}`,
    `- Started: ${m.createdAt}`,
    `- Finished: ${m.completedAt}`,
    "",
    "## Task",
    "",
    m.prompt,
    "",
    "## Result",
    "",
    resultText || "(no text answer)",
    "",
  ].join("\n");
  const errors = [writeText(manifest.outputFile, md), writeText(manifest.manifestFile, `${JSON.stringify(manifest, null, 2)}\n`)].filter(
    (e): e is string => e !== null,
  );
  return { manifest, errors };
}
