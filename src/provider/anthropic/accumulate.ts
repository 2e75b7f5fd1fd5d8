import type { AssistantMessage, ContentBlock, Usage } from "../types.ts";
import { emptyUsage } from "../types.ts";

type OpenBlock = { block: ContentBlock; json?: string };

/** Builds the final assistant message from raw Messages-API stream events. */
export function createAccumulator() {
  let message: AssistantMessage | null = null;
  const blocks: OpenBlock[] = [];
  return {
    push(ev: any): void {
      switch (ev.type) {
        case "message_start": {
          const m = ev.message;
          message = {
            id: m.id,
            type: "message",
            role: "assistant",
            model: m.model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...emptyUsage(), ...stripNulls(m.usage) },
          };
          break;
        }
        case "content_block_start": {
          const b = ev.content_block;
          if (b.type === "tool_use") blocks[ev.index] = { block: { type: "tool_use", id: b.id, name: b.name, input: {} }, json: "" };
          else if (b.type === "text") blocks[ev.index] = { block: { type: "text", text: b.text ?? "" } };
          else if (b.type === "thinking") blocks[ev.index] = { block: { type: "thinking", thinking: b.thinking ?? "", signature: "" } };
          else blocks[ev.index] = { block: b };
          break;
        }
        case "content_block_delta": {
          const p = blocks[ev.index];
          if (!p) break;
          const d = ev.delta;
          if (d.type === "text_delta" && p.block.type === "text") p.block.text += d.text;
          else if (d.type === "input_json_delta") p.json = (p.json ?? "") + d.partial_json;
          else if (d.type === "thinking_delta" && p.block.type === "thinking") p.block.thinking += d.thinking;
          else if (d.type === "signature_delta" && p.block.type === "thinking") p.block.signature = d.signature;
          break;
        }
        case "content_block_stop": {
          const p = blocks[ev.index];
          if (p && p.block.type === "tool_use") p.block.input = parseToolInput(p.json ?? "");
          break;
        }
        case "message_delta": {
          if (!message) break;
          if (ev.delta?.stop_reason !== undefined) message.stop_reason = ev.delta.stop_reason;
          if (ev.delta?.stop_sequence !== undefined) message.stop_sequence = ev.delta.stop_sequence;
          if (ev.usage) message.usage = { ...message.usage, ...stripNulls(ev.usage) } as Usage;
          break;
        }
      }
    },
    /** The complete message, or null when the stream never finished (no message_stop). */
    finish(): AssistantMessage | null {
      if (!message) return null;
      message.content = blocks.filter(Boolean).map((p) => p.block);
      return message;
    },
  };
}

function stripNulls(o: Record<string, unknown> | undefined): Partial<Usage> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o ?? {})) if (v !== null && v !== undefined) out[k] = v;
  return out as Partial<Usage>;
}

/** Invalid JSON from the model becomes a marker object the tool runner reports back as bad input. */
function parseToolInput(json: string): Record<string, unknown> {
  if (json.trim() === "") return {};
  try {
    const v = JSON.parse(json);
    return v && typeof v === "object" && !Array.isArray(v) ? v : { __invalid_json__: json };
  } catch {
    return { __invalid_json__: json };
  }
}
