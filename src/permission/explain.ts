import type { Evaluator } from "./evaluator.ts";
import { resolveHeadless } from "./modes.ts";
import type { PermissionDecision, PermissionMode } from "./types.ts";

export type Explanation = {
  decision: PermissionDecision["behavior"];
  mode: PermissionMode;
  reason: string;
  rule?: { text: string; file: string; index: number; list: "allow" | "ask" | "deny" };
  steps: string[];
  /** What a headless `-p` run does with this call: an ask becomes a deny (contracts §3.4). */
  headless: "allow" | "deny";
  headlessReason: string;
  /** Auto mode: no rule or safety check decided; a run would ask the classifier (seed 000 step 3). */
  classifier?: boolean;
};

/** Decides one call and says why, for `yoke permissions explain`. Never throws. */
export function explainDecision(evaluator: Evaluator, toolName: string, input: Record<string, unknown>, opts: { cwd?: string; readOnly?: boolean } = {}): Explanation {
  const steps: string[] = [];
  steps.push(`mode: ${evaluator.mode}`);
  steps.push(`working directories: ${evaluator.workingDirectories.join(", ")}`);
  const counts = { allow: 0, ask: 0, deny: 0 };
  for (const r of evaluator.rules) counts[r.source.list]++;
  steps.push(`rules loaded: ${counts.deny} deny, ${counts.ask} ask, ${counts.allow} allow`);
  for (const w of evaluator.warnings) steps.push(`warning: ${w}`);
  if (evaluator.isToolHidden(toolName)) steps.push(`${toolName} is denied as a whole tool and hidden from the model`);
  const d = evaluator.decide({ toolName, input, readOnly: opts.readOnly ?? false, cwd: opts.cwd ?? evaluator.workingDirectories[0]! });
  steps.push(d.rule ? `decided by rule ${d.rule.text} (${d.rule.source.file}, permissions.${d.rule.source.list}[${d.rule.source.index}])` : "no rule matched; decided by the mode and built-in checks");
  steps.push(`reason: ${d.reason}`);
  if (d.classify) steps.push("auto mode: a run asks the classifier, which allows or blocks (fails closed)");
  const h = resolveHeadless(d);
  return {
    decision: d.behavior,
    mode: evaluator.mode,
    reason: d.reason,
    rule: d.rule ? { text: d.rule.text, file: d.rule.source.file, index: d.rule.source.index, list: d.rule.source.list } : undefined,
    steps,
    headless: h.behavior === "allow" ? "allow" : "deny",
    headlessReason: h.reason,
    ...(d.classify ? { classifier: true } : {}),
  };
}

/** Human-readable text of an explanation: the decision first, then what decided it. Pure. */
export function formatExplanation(e: Explanation & { modeProblem?: string }): string {
  const note = e.classifier ? " (auto mode: the classifier decides)" : e.decision === "ask" ? " (headless -p: deny, nobody is there to approve)" : "";
  const lines = [`decision: ${e.decision}${note}`, `mode: ${e.mode}`];
  if (e.modeProblem) lines.push(`warning: a run in this mode would not start: ${e.modeProblem}`);
  if (e.rule) lines.push(`rule: ${e.rule.text}`, `from: ${e.rule.file} (permissions.${e.rule.list}[${e.rule.index}])`);
  else lines.push("rule: none matched");
  lines.push(`why: ${e.reason}`, "", "steps:", ...e.steps.map((s) => `  - ${s}`));
  return `${lines.join("\n")}\n`;
}
