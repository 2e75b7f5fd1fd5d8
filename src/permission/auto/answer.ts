/**
 * Reads the classifier's answer: `{"decision": "allow" | "block", "reason": "…"}` as the whole of its text
 * (a ```json fence around it is fine), or as the input of the one answer tool. Pure; never throws.
 *
 * Strict on purpose: prose with a JSON object somewhere inside it, two objects, or an answer through both
 * channels that disagree is no answer, and no answer blocks (fails closed). A classifier talked into quoting
 * something from its input therefore cannot turn the quote into an allow.
 */
import type { ContentBlock } from "../../provider/types.ts";
import { ANSWER_TOOL } from "./prompt.ts";

export type ClassifierAnswer = { ok: true; decision: "allow" | "block"; reason: string } | { ok: false; problem: string };

function fromObject(v: unknown): ClassifierAnswer {
  if (!v || typeof v !== "object" || Array.isArray(v)) return { ok: false, problem: "the answer is not a JSON object" };
  const o = v as Record<string, unknown>;
  const extra = Object.keys(o).filter((k) => k !== "decision" && k !== "reason");
  if (extra.length) return { ok: false, problem: `the answer has unexpected fields (${extra.join(", ")})` };
  if (o.decision !== "allow" && o.decision !== "block") return { ok: false, problem: `"decision" must be "allow" or "block" (got ${JSON.stringify(o.decision) ?? "nothing"})` };
  const reason = typeof o.reason === "string" ? o.reason.trim() : "";
  return { ok: true, decision: o.decision, reason: reason || (o.decision === "allow" ? "allowed" : "no reason given") };
}

function fromText(text: string): ClassifierAnswer {
  let t = text.trim();
  const fence = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(t);
  if (fence) t = fence[1]!.trim();
  if (!t.startsWith("{") || !t.endsWith("}")) return { ok: false, problem: "the answer text is not a single JSON object" };
  try {
    return fromObject(JSON.parse(t));
  } catch {
    return { ok: false, problem: "the answer text is not valid JSON" };
  }
}

export function parseClassifierAnswer(content: ContentBlock[]): ClassifierAnswer {
  const calls = content.filter((b) => b.type === "tool_use");
  const text = content
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("")
    .trim();
  if (calls.length > 1) return { ok: false, problem: "the classifier called tools more than once" };
  const call = calls[0];
  if (call && call.name !== ANSWER_TOOL) return { ok: false, problem: `the classifier called an unknown tool (${call.name})` };
  const viaTool = call ? fromObject(call.input) : undefined;
  const viaText = text ? fromText(text) : undefined;
  if (viaTool && viaText) {
    // Prose beside the tool call is fine; a second, different decision in the text is not.
    if (viaText.ok && viaTool.ok && viaText.decision !== viaTool.decision) return { ok: false, problem: "the classifier gave two different decisions" };
    return viaTool;
  }
  return viaTool ?? viaText ?? { ok: false, problem: "the classifier gave an empty answer" };
}
