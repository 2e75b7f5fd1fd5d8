import type { Tool } from "../tool/types.ts";
import { mcpToolName } from "./config.ts";
import type { McpServerState } from "./manager.ts";

/**
 * What the model is told about MCP servers that were still connecting when a request left (src/mcp/first-wait.ts).
 * Claude Code 2.1.332 (observed) names them in the first request, says their tools will follow and that ToolSearch
 * waits for them, and lists the tools once the server is there, in the next request. The wording is ours.
 *
 * Returns a function that, called as a request is built (each prompt, each tool batch), gives the texts (already
 * wrapped as reminders) that this request should carry: a server is announced as connecting once, and then once more
 * when it has connected (its tools) or failed. Never throws.
 */
export function connectNotes(servers: () => McpServerState[], tools: () => Tool[]): () => string[] {
  const waiting = new Set<string>();
  const wrap = (t: string) => `<system-reminder>\n${t}\n</system-reminder>`;
  return () => {
    const out: string[] = [];
    const now = servers();
    const arrived: string[] = [];
    for (const name of waiting) {
      const s = now.find((x) => x.name === name);
      if (s?.status === "pending") continue;
      waiting.delete(name);
      if (!s) continue;
      if (s.status === "connected") {
        // The tools as registered: hidden ones (deny rules) and over-long names are not there.
        const wanted = new Set(s.tools.map((t) => mcpToolName(s.name, t.name)));
        const got = tools().filter((t) => wanted.has(t.name));
        const names = got.map((t) => t.name);
        if (!names.length) arrived.push(`MCP server "${s.name}" has connected; it offers no tools.`);
        else {
          const deferred = got.some((t) => t.deferred);
          arrived.push(
            `MCP server "${s.name}" has connected. Its tools are available now${deferred ? " as deferred tools (load them with ToolSearch before calling them)" : ""}:\n${names.join("\n")}`,
          );
        }
      } else arrived.push(`MCP server "${s.name}" did not connect (${s.status}${s.error ? `: ${s.error.slice(0, 300)}` : ""}); its tools are not available.`);
    }
    if (arrived.length) out.push(wrap(arrived.join("\n\n")));
    const fresh = now.filter((s) => s.status === "pending" && !waiting.has(s.name)).map((s) => s.name);
    if (fresh.length) {
      for (const n of fresh) waiting.add(n);
      out.push(
        wrap(
          `These MCP servers are still connecting, so their tools (named mcp__<server>__<tool>) are not in your tool list yet; they will be announced here when they connect:\n${fresh.join("\n")}\n\n` +
            "If the task could need one of them, even one the user did not name, call ToolSearch with a keyword: it waits for the servers still connecting, then searches their tools. Do not tell the user a capability is missing while its server is still connecting.",
        ),
      );
    }
    return out;
  };
}
