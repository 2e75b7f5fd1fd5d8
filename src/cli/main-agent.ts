import type { AgentDefinition } from "../agent/types.ts";
import { hookSchemas } from "../config/hooks-schema.ts";
import type { YokeHookBus } from "../hook/bus.ts";
import type { LoadedSettings } from "../config/load.ts";
import type { Extensions } from "../extension/runtime.ts";
import { readBody } from "../extension/invoke.ts";
import type { Evaluator } from "../permission/index.ts";
import { mcpPolicyBlock, readMcpPolicy } from "../mcp/policy.ts";
import { policyEnv } from "../mcp/session-servers.ts";
import { readManagedMcp } from "../mcp/managed-mcp.ts";
import { managedDir } from "../config/paths.ts";
import { pluginOnlySurfaces } from "../config/plugin-only.ts";
import { PERMISSION_MODES, type PermissionEvaluator, type PermissionMode } from "../permission/types.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import type { Tool } from "../tool/types.ts";
import { toolNames } from "../tool/declarations.ts";
import { isProjectTrusted } from "../trust/workspace.ts";
import { modeProblem } from "./permission-wiring.ts";

/**
 * An agent's `permissionMode` (issue 14 point 4, contracts §6.4) as an evaluator for its runs: ignored for plugin
 * agents (contracts §6.1), for a project agent in an untrusted folder (what a checkout ships cannot widen
 * permissions), when policy forbids the mode, and when the session already bypasses permissions. Never throws.
 */
export function agentPermissions(o: {
  settings: LoadedSettings;
  env: Record<string, string>;
  parent: () => Evaluator;
  make: (mode: PermissionMode) => PermissionEvaluator;
  warn: (m: string) => void;
}): (agent: AgentDefinition) => PermissionEvaluator | undefined {
  const made = new Map<string, PermissionEvaluator>();
  return (agent) => {
    const mode = agent.permissionMode as PermissionMode | undefined;
    if (!mode || !PERMISSION_MODES.includes(mode) || agent.source === "plugin") return undefined;
    if (agent.source === "project" && !isProjectTrusted(o.settings)) return undefined;
    if (o.parent().mode === "bypassPermissions" || o.parent().mode === mode) return undefined;
    const problem = modeProblem(mode, o.settings, o.env);
    if (problem) {
      o.warn(`${agent.file ?? `agent ${agent.name}`}: permissionMode ${mode} is not used: ${problem}`);
      return undefined;
    }
    if (!made.has(mode)) made.set(mode, o.make(mode));
    return made.get(mode);
  };
}

/** The bodies of an agent's `skills`, as context blocks before its first prompt; unknown names are said once. */
export function agentSkillContext(ext: () => Extensions | undefined, warn: (m: string) => void): (agent: AgentDefinition) => string[] {
  return (agent) => {
    const out: string[] = [];
    for (const name of agent.skills ?? []) {
      const cmd = ext()?.find(name);
      if (!cmd) {
        warn(`${agent.file ?? `agent ${agent.name}`}: skills names "${name}", which is no skill or command here`);
        continue;
      }
      try {
        const body = readBody(cmd);
        out.push(`<system-reminder>\nSkill "${cmd.name}" (${cmd.file}), loaded for this agent:\n${cmd.baseDir ? `Base directory for this skill: ${cmd.baseDir}\n\n` : ""}${body}\n</system-reminder>`);
      } catch (e) {
        warn((e as Error).message);
      }
    }
    return out;
  };
}

/**
 * `--agent NAME` (issue 14 point 4): the main conversation runs as that agent: its body is the system prompt
 * (unless --system-prompt is given), its `tools`/`disallowedTools` cut the tool set, its `model` applies unless
 * --model is given. The name is looked up by main-agent-name.ts.
 */
export { mainAgent } from "./main-agent-name.ts";

/** Removes the tools the agent may not use from the session's registry (in place). */
export function cutToolsForAgent(agent: AgentDefinition, tools: ToolRegistry): void {
  const drops = agentDrops(agent);
  for (const t of tools.list()) if (drops(t)) tools.remove(t.name);
}

/** Whether the agent's `tools` / `disallowedTools` leave a tool out (an MCP tool that joins later too). */
export function agentDrops(agent: AgentDefinition): (t: { name: string; aliases?: string[] }) => boolean {
  const base = (e: string) => e.trim().replace(/\(.*\)$/, "").trim();
  const names = (list: string[]) => new Set(list.map(base).flatMap((n) => toolNames(n)));
  const keep = agent.tools && !(agent.tools.length === 1 && agent.tools[0] === "*") ? names(agent.tools) : null;
  const drop = names(agent.disallowedTools ?? []);
  return (t) => {
    const all = [t.name, ...toolNames(t.name), ...(t.aliases ?? [])];
    return (keep !== null && !all.some((n) => keep.has(n))) || all.some((n) => drop.has(n));
  };
}

/**
 * An agent's frontmatter `hooks` (contracts §1.2/§6.4), added to the bus while that agent runs (a `Stop` there is
 * `SubagentStop`) and removed when it ends. Not for plugin agents (contracts §6.1) nor from an untrusted folder.
 * Bad hooks are reported naming the file and field, and the agent runs without them. Never throws.
 */
export function agentHooks(o: { bus: YokeHookBus; settings: LoadedSettings; warn: (m: string) => void }): (agent: AgentDefinition) => (() => void) | undefined {
  return (agent) => {
    if (!agent.hooks || agent.source === "plugin") return undefined;
    if (agent.source === "project" && !isProjectTrusted(o.settings)) return undefined;
    const parsed = hookSchemas().hooksSchema.safeParse(agent.hooks);
    if (!parsed.success) {
      const i = parsed.error.issues[0]!;
      o.warn(`${agent.file ?? `agent ${agent.name}`}: field "hooks.${i.path.join(".")}": ${i.message} (the agent runs without its hooks)`);
      return undefined;
    }
    const hooks: Record<string, unknown> = {};
    for (const [event, groups] of Object.entries(parsed.data)) hooks[event === "Stop" ? "SubagentStop" : event] = groups;
    return o.bus.addPluginHooks(hooks as never, { path: agent.file ?? `agent ${agent.name}`, owner: `agent:${agent.name}`, env: {} });
  };
}

/**
 * Why no frontmatter MCP server of this agent may start, named or inline, or undefined. As Claude Code 2.1.332 decides
 * (observed in its agent start): managed strictPluginOnlyCustomization locking "mcp" leaves out every agent that is not
 * built in or a plugin's (user, project and `--agents` ones; plugin agents have none anyway), and managed-mcp.json,
 * which takes exclusive control, leaves out every agent's.
 */
export function agentServersLocked(agent: Pick<AgentDefinition, "source">, settings: LoadedSettings, env: Record<string, string>): string | undefined {
  if (agent.source !== "built-in" && agent.source !== "plugin" && pluginOnlySurfaces(settings, () => {}).has("mcp"))
    return "managed strictPluginOnlyCustomization allows MCP servers only from plugins";
  const managed = readManagedMcp(managedDir(env));
  if (managed) return `managed-mcp.json (${managed.path}) has exclusive control over MCP servers`;
  return undefined;
}

/**
 * An agent's own MCP servers (frontmatter `mcpServers`, issue 14 point 4; src/mcp/agent-servers.ts) for the length
 * of its run. Not for plugin agents (contracts §6.1). Inline servers start only where the session's own would:
 * not under `--bare`, not under `--strict-mcp-config` (unless the agent came from `--agents`), and a project agent's
 * only in a trusted folder. The MCP client is imported only for an agent that has entries. Never rejects.
 */
export function agentMcpServers(o: {
  cwd: string;
  env: Record<string, string>;
  settings: LoadedSettings;
  bare: boolean;
  strict: boolean;
  version: string;
  logDir: string;
  sessionTools: () => ToolRegistry;
  hidden: (name: string) => boolean;
  warn: (m: string) => void;
}): (agent: AgentDefinition) => Promise<{ tools: Tool[]; close(): Promise<void> } | undefined> {
  const mayStartInline = (agent: AgentDefinition): string | true => {
    if (o.bare) return "--bare starts no MCP servers";
    if (o.strict && agent.source !== "flag") return "--strict-mcp-config is set";
    if (agent.source === "project" && !isProjectTrusted(o.settings)) return "this folder is not trusted yet (yoke trust)";
    return true;
  };
  return async (agent) => {
    if (agent.mcpServers === undefined || agent.source === "plugin") return undefined;
    const locked = agentServersLocked(agent, o.settings, o.env);
    if (locked) {
      o.warn(`${agent.file ?? `agent ${agent.name}`}: its MCP servers (frontmatter mcpServers) are not started: ${locked} (agent source: ${agent.source})`);
      return undefined;
    }
    const m = await import("../mcp/agent-servers.ts");
    const policy = readMcpPolicy(o.settings);
    return m.startAgentServers(agent, { ...o, mayStartInline, policyBlock: (s) => mcpPolicyBlock(s, policy, policyEnv(o.env, o.cwd)) });
  };
}
