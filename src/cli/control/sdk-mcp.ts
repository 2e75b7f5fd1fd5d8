/**
 * The Agent SDK's in-process MCP servers (`createSdkMcpServer`, named in initialize's `sdkMcpServers`) as one more
 * MCP transport (contracts §4.6 `mcp_message`): each JSON-RPC message to the server is a control request to the
 * host, and its `mcp_response` comes back as the server's message. The MCP client and its timeouts are the same as
 * for stdio and HTTP servers (src/mcp/).
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { StdinSession } from "../stdin.ts";

export function controlTransport(control: Pick<StdinSession, "request">, serverName: string): Transport {
  let closed = false;
  const t: Transport = {
    async start() {},
    async send(message: JSONRPCMessage) {
      if (closed) throw new Error(`MCP server "${serverName}" (Agent SDK host) is closed`);
      const id = "id" in message && "method" in message ? message.id : undefined;
      // Not awaited: the client waits for the answer through onmessage, so requests in flight do not queue behind each other.
      void control.request({ subtype: "mcp_message", server_name: serverName, message }).then(
        (r) => {
          // A notification's answer carries nothing for the client.
          if (id === undefined || closed) return;
          const resp = r.mcp_response;
          if (resp && typeof resp === "object") t.onmessage?.(resp as JSONRPCMessage);
          else t.onmessage?.({ jsonrpc: "2.0", id, error: { code: -32603, message: `the Agent SDK host answered mcp_message for "${serverName}" without mcp_response` } });
        },
        (err: Error) => {
          if (closed) return;
          if (id !== undefined) t.onmessage?.({ jsonrpc: "2.0", id, error: { code: -32603, message: `the Agent SDK host could not serve "${serverName}": ${err.message}` } });
          else t.onerror?.(err);
        },
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      t.onclose?.();
    },
  };
  return t;
}
