import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import { normalizeMcpName } from "./config.ts";
import type { McpManager } from "./manager.ts";
import { resourceContent } from "./resource-tools.ts";
import { MCP_PROMPT_COMMAND, MCP_RESOURCE_MENTION } from "./mentions.ts";

/**
 * User input that reaches MCP servers (issue 13 point 5): `/mcp__<server>__<prompt> args` runs the server's prompt
 * and sends its messages as the prompt; `@server:uri` mentions attach the resource's text. Input that names no
 * connected server is left as it is.
 */
export const promptCommandName = (server: string, prompt: string) => `mcp__${normalizeMcpName(server)}__${normalizeMcpName(prompt)}`;

const messagesText = (r: GetPromptResult): string =>
  r.messages
    .map((m) => {
      const c = m.content as { type: string; text?: string; resource?: { uri: string; text?: string } };
      if (c.type === "text") return c.text ?? "";
      if (c.type === "resource" && c.resource) return c.resource.text ?? `[Resource ${c.resource.uri}]`;
      return `[${c.type} content from the prompt]`;
    })
    .filter(Boolean)
    .join("\n\n");

/** Expands one prompt. Throws an Error naming server and prompt when the server fails; never for ordinary text. */
export async function expandMcpInput(text: string, manager: McpManager, signal?: AbortSignal): Promise<string> {
  const servers = manager.servers().filter((s) => s.status === "connected");
  let out = text;
  const cmd = MCP_PROMPT_COMMAND.exec(text.trim());
  if (cmd) {
    for (const s of servers)
      for (const p of s.prompts) {
        if (promptCommandName(s.name, p.name) !== cmd[1]) continue;
        // Arguments are taken in order, split on whitespace; the last one gets the rest of the line.
        const words = (cmd[2] ?? "").trim().split(/\s+/).filter(Boolean);
        const declared = p.arguments ?? [];
        const args: Record<string, string> = {};
        declared.forEach((a, i) => {
          const v = i === declared.length - 1 ? words.slice(i).join(" ") : words[i];
          if (v) args[a.name] = v;
        });
        const missing = declared.filter((a) => a.required && !args[a.name]).map((a) => a.name);
        if (missing.length) throw new Error(`/${cmd[1]} needs ${missing.join(", ")} (arguments in order: ${declared.map((a) => a.name).join(" ")})`);
        try {
          out = messagesText(await manager.getPrompt(s.name, p.name, args, signal));
        } catch (e) {
          throw new Error(`/${cmd[1]}: ${(e as Error).message}`);
        }
      }
  }
  const attached: string[] = [];
  for (const m of out.matchAll(MCP_RESOURCE_MENTION)) {
    const server = servers.find((s) => s.name === m[1] && s.hasResources);
    if (!server) continue;
    try {
      const content = resourceContent(await manager.readResource(server.name, m[2]!, signal));
      attached.push(`<mcp-resource server="${server.name}" uri="${m[2]}">\n${typeof content === "string" ? content : content.map((b) => (b.type === "text" ? b.text : "[image]")).join("\n")}\n</mcp-resource>`);
    } catch (e) {
      throw new Error(`@${m[1]}:${m[2]}: ${(e as Error).message}`);
    }
  }
  return attached.length ? `${out}\n\n${attached.join("\n\n")}` : out;
}
