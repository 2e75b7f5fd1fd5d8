/**
 * The Agent SDK host on the other end of stream-json (contracts §4.6–4.7), wired into a composed session: its
 * hooks on the hook bus, its permission answers as the `ask` surface, its in-process MCP servers, and the answers
 * to its control requests. The mode reports each turn so `interrupt` (and a deny with `interrupt: true`) reach it.
 */
import type { PermissionMode } from "../../permission/types.ts";
import type { Runtime } from "../compose.ts";
import type { InitializeRequest, StdinSession } from "../stdin.ts";
import { askHostPermission, DEFAULT_HOST_TIMEOUT_MS } from "./can-use-tool.ts";
import { registerHostHooks } from "./host-hooks.ts";
import { type HostInit, initializeResponse } from "./initialize.ts";
import { answerControl } from "./requests.ts";
import { controlTransport } from "./sdk-mcp.ts";

export type HostSession = {
  /** The running turn's controller, or null between turns. */
  setTurn(ctrl: AbortController | null): void;
};

/** YOKE_HOST_TIMEOUT_MS: how long a can_use_tool request waits for the host (hook callbacks use the hook's timeout). */
export function hostTimeoutMs(env: Record<string, string | undefined>): number {
  const n = Number(env.YOKE_HOST_TIMEOUT_MS);
  return env.YOKE_HOST_TIMEOUT_MS && Number.isFinite(n) && n > 0 ? n : DEFAULT_HOST_TIMEOUT_MS;
}

export async function attachHost(o: {
  rt: Runtime;
  control: StdinSession;
  /** The first initialize, not yet answered (null: the host did not send one first). */
  init: InitializeRequest | null;
  hostInit: HostInit | null;
  /** `--permission-prompt-tool stdio`: asks go to the host. */
  askHost: boolean;
}): Promise<HostSession> {
  const { rt, control, hostInit } = o;
  const warn = (m: string) => void rt.log.warn(m);
  let turn: AbortController | null = null;
  const setMode = (mode: PermissionMode) => {
    rt.permissions.setMode(mode);
    rt.permissionMode = mode;
    // contracts §4.6: set_permission_mode is followed by system/status carrying the mode.
    rt.outbox.push({ type: "system", subtype: "status", data: { status: null, permissionMode: mode } });
  };
  if (hostInit) registerHostHooks({ bus: rt.hooks, init: hostInit, control, warn });
  rt.main.promptUuid = () => control.promptUuid();
  if (o.askHost)
    rt.deps.askPermission = askHostPermission({
      control,
      cwd: rt.cwd,
      timeoutMs: hostTimeoutMs(rt.env),
      interrupt: () => turn?.abort(),
      turnSignal: () => turn?.signal,
      target: { addRules: (b, r) => rt.permissions.addRules(b, r), setMode },
      warn,
    });
  const initAnswer = () => initializeResponse(rt, hostInit, rt.permissions.mode);
  if (o.init) control.respond(o.init.requestId, { response: initAnswer() });
  // In-process servers connect after the answer (the host serves mcp_message once initialized) and before
  // system/init, which lists them with source "sdk". A server that fails is listed as failed, naming why.
  await Promise.all((hostInit?.sdkMcpServers ?? []).map((name) => rt.mcp.addServer(name, () => controlTransport(control, name), { scope: "sdk", source: "sdk" })));
  control.onControl = (req) => answerControl({ rt, interrupt: () => turn?.abort(), initialize: initAnswer, setMode, warn }, req);
  return {
    setTurn(ctrl) {
      turn = ctrl;
    },
  };
}
