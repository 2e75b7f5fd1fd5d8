/**
 * Auto mode's step 3 (seed 000): the classifier decides what no rule, hook or safety check settled, behind a
 * circuit breaker. 3 blocks in a row or 20 in the session pause auto mode: from then on the caller prompts
 * (interactive) or denies saying auto mode is paused (headless). A person's approval closes a streak.
 * Never throws; a classifier failure is a block that says so (fail closed).
 */
import { dirname } from "node:path";
import type { Message } from "../../provider/types.ts";
import { isInside } from "../paths.ts";
import type { Classifier } from "./classifier.ts";
import type { AutoDenial } from "./denial-log.ts";

export const BLOCKS_IN_A_ROW = 3;
export const BLOCKS_PER_SESSION = 20;

export type AutoReview =
  | { behavior: "allow"; reason: string }
  | { behavior: "deny"; reason: string; kind: "classifier" | "failure" }
  /** The breaker is open: the caller asks a person, or denies headless with this reason. */
  | { behavior: "paused"; reason: string };

export type AutoReviewRequest = {
  toolName: string;
  input: Record<string, unknown>;
  toolUseId: string;
  cwd: string;
  history: readonly Message[];
  /** The call only reads (Read, Grep, Glob, LS ...): an approved first read outside opens its folder to later reads. */
  readOnly?: boolean;
  signal?: AbortSignal;
};

/** The folder a read-only call reads in: a file's folder, or the searched folder. */
const readScope = (input: Record<string, unknown>): string | undefined => {
  if (typeof input.file_path === "string") return dirname(input.file_path);
  if (typeof input.notebook_path === "string") return dirname(input.notebook_path);
  if (typeof input.path === "string") return input.path;
  return undefined;
};

export type AutoMode = {
  review(req: AutoReviewRequest): Promise<AutoReview>;
  /** A person approved an action (a prompt while paused): the streak of blocks ends and auto mode resumes, unless the session limit is reached. */
  approvedByPerson(): void;
  readonly paused: boolean;
  /** Counters for tests, the bench and `/permissions`. */
  stats(): { classified: number; allowed: number; blocked: number; failures: number; inARow: number; paused: boolean };
};

export type AutoModeOptions = {
  classify: Classifier;
  rules: () => { allow: string[]; ask: string[]; deny: string[] };
  sessionId: string;
  /** Where a denial is kept (denial-log.ts); returns a warning when it could not be written. */
  record?: (d: AutoDenial) => string | undefined;
  warn?: (message: string) => void;
  now?: () => Date;
};

export function createAutoMode(o: AutoModeOptions): AutoMode {
  let inARow = 0;
  let total = 0;
  let classified = 0;
  let allowed = 0;
  let failures = 0;
  // Seed 000: only the first read outside the working directories goes to the classifier.
  const readDirs: string[] = [];
  const isPaused = () => inARow >= BLOCKS_IN_A_ROW || total >= BLOCKS_PER_SESSION;
  const pausedReason = () =>
    `Auto mode paused after ${inARow >= BLOCKS_IN_A_ROW ? `${inARow} blocked actions in a row` : `${total} blocked actions in this session`}; ` +
    "actions that no rule allows now need a person's approval.";

  const keep = (req: AutoReviewRequest, reason: string, kind: AutoDenial["kind"]) => {
    const w = o.record?.({
      time: (o.now?.() ?? new Date()).toISOString(),
      sessionId: o.sessionId,
      toolName: req.toolName,
      toolUseId: req.toolUseId,
      input: req.input,
      reason,
      kind,
    });
    if (w) o.warn?.(w);
  };

  return {
    async review(req) {
      if (isPaused()) {
        const reason = pausedReason();
        keep(req, reason, "paused");
        return { behavior: "paused", reason };
      }
      const scope = req.readOnly ? readScope(req.input) : undefined;
      if (scope?.startsWith("/") && readDirs.some((d) => isInside(d, scope)))
        return { behavior: "allow", reason: `an earlier read in ${readDirs.find((d) => isInside(d, scope))} was approved by the auto mode classifier` };
      classified++;
      const v = await o.classify({ action: { toolName: req.toolName, input: req.input, cwd: req.cwd, toolUseId: req.toolUseId }, history: req.history, rules: o.rules(), signal: req.signal });
      if (v.ok && v.decision === "allow") {
        allowed++;
        inARow = 0;
        if (scope?.startsWith("/") && scope !== "/") readDirs.push(scope);
        return { behavior: "allow", reason: `auto mode classifier: ${v.reason}` };
      }
      inARow++;
      total++;
      let reason: string;
      let kind: "classifier" | "failure";
      if (v.ok) {
        kind = "classifier";
        reason = `Auto mode blocked this action: ${v.reason}`;
      } else {
        kind = "failure";
        failures++;
        reason = `Auto mode could not check this action (the classifier failed: ${v.problem}), so it was blocked; auto mode fails closed.`;
      }
      if (isPaused()) reason += ` ${pausedReason()}`;
      reason += " Do not retry the same action; find another way, or explain what you need approved.";
      keep(req, reason, kind);
      return { behavior: "deny", reason, kind };
    },
    approvedByPerson() {
      inARow = 0;
    },
    get paused() {
      return isPaused();
    },
    stats: () => ({ classified, allowed, blocked: total, failures, inARow, paused: isPaused() }),
  };
}
