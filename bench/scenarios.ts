/**
 * The benchmark scenarios and the fake model that answers them.
 *
 * The fake answers statelessly from the request itself (how many assistant turns the conversation
 * already holds), so side requests a CLI may send (titles, quota checks, count_tokens) cannot
 * consume the script: a request is "main loop" only when its messages carry this run's marker and
 * it offers the Write tool; anything else gets a short text reply and is counted as a side request.
 *
 * Nothing here throws for a child's sake: a failed run comes back as a reason string.
 */
import { existsSync, mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeAnthropic, FakeReply, LoggedRequest } from "../test/helpers/fake-anthropic.ts";
import { toolResultsOf } from "../test/helpers/fake-anthropic.ts";

export type ScenarioId = "version" | "oneTurn" | "threeTurns";
export type ThreeTurnTool = "Bash" | "Read";

export const ONE_TURN_REPLY = "Hello from the fake.";
export const THREE_TURN_REPLY = "Done.";
const MARKER = (id: ScenarioId) => `[yoke-bench:${id}]`;

/** What one run asked of the fake: filled in by the responder while the child runs. */
export type RunLog = {
  scenario: ScenarioId;
  cwd: string;
  mainRequests: number;
  sideRequests: number;
  /** performance.now() when the first main-loop request arrived at the fake, or null. */
  firstRequestAt: number | null;
  /** tool_result texts the CLI sent back, in order, with their is_error flag. */
  toolResults: Array<{ text: string; isError: boolean }>;
  /** The body of the first main-loop request (the configured project's check reads it). */
  firstBody: unknown;
};

const textOf = (req: LoggedRequest): string => JSON.stringify(req.body?.messages ?? []);
const offersWrite = (req: LoggedRequest): boolean =>
  Array.isArray(req.body?.tools) && req.body.tools.some((t: { name?: unknown }) => t?.name === "Write");

/** The reply for the main-loop request that follows `step` assistant turns. */
function scriptedReply(log: RunLog, step: number, tool: ThreeTurnTool): FakeReply {
  if (log.scenario !== "threeTurns") return { content: [{ type: "text", text: ONE_TURN_REPLY }] };
  const file = join(log.cwd, "out.txt");
  if (step === 0)
    return { content: [{ type: "text", text: "Writing." }, { type: "tool_use", name: "Write", input: { file_path: file, content: "hello\n" } }] };
  if (step === 1)
    return tool === "Bash"
      ? { content: [{ type: "tool_use", name: "Bash", input: { command: "mkdir made", description: "Make a directory" } }] }
      : { content: [{ type: "tool_use", name: "Read", input: { file_path: file } }] };
  return { content: [{ type: "text", text: THREE_TURN_REPLY }] };
}

/**
 * Keeps the fake's queue stocked with a responder that answers whichever run is current.
 * `current()` is read per request, so one responder serves every run in sequence.
 */
export function installResponder(fake: FakeAnthropic, current: () => RunLog | null, tool: () => ThreeTurnTool): () => void {
  const respond = (req: LoggedRequest): FakeReply => {
    const log = current();
    if (!log || !textOf(req).includes(MARKER(log.scenario)) || !offersWrite(req)) {
      if (log) log.sideRequests++;
      return { content: [{ type: "text", text: "ok" }] };
    }
    const messages = (req.body.messages ?? []) as Array<{ role?: string }>;
    const step = messages.filter((m) => m.role === "assistant").length;
    if (log.mainRequests++ === 0) {
      log.firstRequestAt = performance.now();
      log.firstBody = req.body;
    }
    if (step > 0) for (const r of toolResultsOf(req)) log.toolResults.push({ text: r.text, isError: r.is_error });
    return scriptedReply(log, step, tool());
  };
  // The fake hands a queued entry to each request; keep plenty queued (they are stateless).
  return () => {
    while (fake.pending < 64) fake.push(respond);
  };
}

/** A fresh, symlink-free working directory for one run. */
export const freshCwd = (): string => realpathSync(mkdtempSync(join(tmpdir(), "yoke-bench-cwd-")));

/** argv after the binary for a scenario. */
export function scenarioArgs(id: ScenarioId): string[] {
  if (id === "version") return ["--version"];
  if (id === "oneTurn") return ["-p", `${MARKER(id)} say hello`];
  return ["-p", `${MARKER(id)} write out.txt, then check it`, "--permission-mode", "acceptEdits"];
}

export const newRunLog = (scenario: ScenarioId, cwd: string): RunLog => ({ scenario, cwd, mainRequests: 0, sideRequests: 0, firstRequestAt: null, toolResults: [], firstBody: null });

/** Why a finished run does not count, or null when it did what the scenario scripts. */
export function runProblem(id: ScenarioId, s: { code: number | null; stdout: string; stderr: string; timedOut: boolean }, log: RunLog): string | null {
  const tail = `\n  stdout: ${s.stdout.slice(0, 400)}\n  stderr: ${s.stderr.slice(0, 400)}`;
  if (s.timedOut) return `timed out${tail}`;
  if (s.code !== 0) return `exited ${s.code}${tail}`;
  if (id === "version") return s.stdout.trim() ? null : `printed no version${tail}`;
  const want = id === "oneTurn" ? ONE_TURN_REPLY : THREE_TURN_REPLY;
  if (!s.stdout.includes(want)) return `stdout lacks "${want}"${tail}`;
  const turns = id === "oneTurn" ? 1 : 3;
  if (log.mainRequests !== turns) return `made ${log.mainRequests} main-loop requests, expected ${turns}${tail}`;
  if (id === "threeTurns" && !existsSync(join(log.cwd, "out.txt"))) return `did not write out.txt${tail}`;
  return null;
}
