/**
 * The invalid_request_error checks the real Messages API makes that a harness most often trips:
 * missing fields, empty content, tool_use/tool_result pairing, too many cache_control breakpoints.
 * A lax fake would let such loop bugs pass end-to-end tests and fail only against the real API.
 *
 * Pure; never throws. Returns the error message (with a field path like the real API's), or null.
 */

type Block = { type?: unknown; text?: unknown; id?: unknown; tool_use_id?: unknown; cache_control?: unknown };

const blocksOf = (content: unknown): Block[] | null =>
  Array.isArray(content) ? (content.filter((b) => b && typeof b === "object") as Block[]) : null;

export function validateMessagesRequest(body: Record<string, any>): string | null {
  if (typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
    return "max_tokens: Field required (a positive integer)";
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "messages: at least one message is required";

  let cacheBreakpoints = 0;
  const countCache = (blocks: Block[] | null) => {
    for (const b of blocks ?? []) if (b.cache_control) cacheBreakpoints++;
  };

  if (body.system !== undefined) {
    const sys = typeof body.system === "string" ? null : blocksOf(body.system);
    if (typeof body.system !== "string" && sys === null) return "system: Input should be a valid string or list";
    for (const [i, b] of (sys ?? []).entries()) {
      if (b.type === "text" && (typeof b.text !== "string" || b.text === "")) {
        return `system.${i}: text content blocks must be non-empty`;
      }
    }
    countCache(sys);
  }
  for (const t of Array.isArray(body.tools) ? body.tools : []) if (t?.cache_control) cacheBreakpoints++;

  const msgs = body.messages as Array<{ role?: unknown; content?: unknown }>;
  const seenToolUse = new Set<string>();
  for (const [i, m] of msgs.entries()) {
    // `system` turns inside the conversation: the SDK's SystemMessageParam (text only), as Claude Code 2.1.332 sends hook feedback.
    if (m?.role !== "user" && m?.role !== "assistant" && m?.role !== "system") return `messages.${i}.role: Input should be 'user', 'assistant' or 'system'`;
    if (m.role === "system" && Array.isArray(m.content) && m.content.some((b: any) => b?.type !== "text"))
      return `messages.${i}.content: a system message takes text blocks only`;
    const isFinalAssistant = m.role === "assistant" && i === msgs.length - 1;
    // A string content is one text block as far as these checks go.
    const blocks = typeof m.content === "string" ? (m.content === "" ? [] : [{ type: "text", text: m.content }]) : blocksOf(m.content);
    if (blocks === null) return `messages.${i}.content: Input should be a valid string or list`;
    if (blocks.length === 0 && !isFinalAssistant) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    const lastText = blocks.at(-1);
    if (isFinalAssistant && lastText?.type === "text" && typeof lastText.text === "string" && /\s$/.test(lastText.text)) {
      return "final assistant content cannot end with trailing whitespace";
    }
    countCache(blocks);
    for (const [j, b] of blocks.entries()) {
      if (b.type === "text" && (typeof b.text !== "string" || b.text === "")) {
        return `messages.${i}.content.${j}: text content blocks must be non-empty`;
      }
      if (b.type === "text" && String(b.text).trim() === "" && !isFinalAssistant) {
        return `messages.${i}.content.${j}: text content blocks must contain non-whitespace text`;
      }
      if (b.type === "tool_use") {
        if (typeof b.id !== "string" || seenToolUse.has(b.id)) {
          return `messages.${i}.content.${j}: tool_use ids must be unique (${String(b.id)})`;
        }
        seenToolUse.add(b.id);
      }
      if (b.type === "tool_result" && m.role !== "user") {
        return `messages.${i}.content.${j}: tool_result blocks are only allowed in user messages`;
      }
    }

    // Pairing: every tool_use must be answered in the very next message, and a tool_result may
    // only answer a tool_use of the message right before it.
    const prev = i > 0 ? blocksOf(msgs[i - 1]?.content) : null;
    const prevToolUse = new Set(
      msgs[i - 1]?.role === "assistant" ? (prev ?? []).filter((b) => b.type === "tool_use").map((b) => String(b.id)) : [],
    );
    const results = blocks.filter((b) => b.type === "tool_result").map((b) => String(b.tool_use_id));
    for (const id of results) {
      if (!prevToolUse.has(id)) {
        return `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
    const missing = [...prevToolUse].filter((id) => !results.includes(id));
    if (missing.length > 0) {
      return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    }
  }
  if (cacheBreakpoints > 4) {
    return `A maximum of 4 blocks with cache_control may be provided. Found ${cacheBreakpoints}.`;
  }
  return null;
}
