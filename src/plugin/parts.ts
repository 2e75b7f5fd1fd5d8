import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * Where a Claude Code plugin's components sit (contracts §6.1): the default folders, changed by plugin.json path
 * fields: `commands`, `agents` and `outputStyles` replace the default, `skills` adds to it. Pure apart from
 * existence checks.
 */
export type PluginPaths = { commands: string[]; agents: string[]; skills: string[]; outputStyles: string[] };

const asPaths = (v: unknown): string[] | undefined =>
  typeof v === "string" ? [v] : Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : undefined;

export function pluginPaths(root: string, manifest: Record<string, unknown>): PluginPaths {
  const at = (rel: string[]) => rel.map((r) => resolve(root, r));
  const cmd = asPaths(manifest.commands);
  const agents = asPaths(manifest.agents);
  const skills = asPaths(manifest.skills);
  const styles = asPaths(manifest.outputStyles);
  return {
    commands: cmd ? at(cmd) : [join(root, "commands")],
    agents: agents ? at(agents) : [join(root, "agents")],
    skills: [join(root, "skills"), ...(skills ? at(skills) : [])],
    outputStyles: styles ? at(styles) : [join(root, "output-styles")],
  };
}

/** One part of a plugin as `yoke plugins list` shows it. */
export type PartState = {
  part: string;
  state: "loaded" | "failed" | "not supported yet";
  /** What loaded (names), when there is a list. */
  items?: string[];
  /** Why it failed or what is not supported, naming the file. */
  reason?: string;
};

/** Parts yoke does not run yet, when the plugin has them: said as such, never as "enabled". */
export function unsupportedParts(root: string, manifest: Record<string, unknown>): PartState[] {
  const out: PartState[] = [];
  if (existsSync(join(root, ".lsp.json")) || manifest.lspServers !== undefined)
    out.push({ part: "lspServers", state: "not supported yet", reason: "yoke has no LSP client yet; the servers are not started" });
  if (existsSync(join(root, "bin"))) out.push({ part: "bin", state: "not supported yet", reason: `${join(root, "bin")} is not added to the Bash PATH yet` });
  if (existsSync(join(root, "settings.json"))) out.push({ part: "settings", state: "not supported yet", reason: `${join(root, "settings.json")} (agent, subagentStatusLine) is not applied yet` });
  if (manifest.userConfig !== undefined) out.push({ part: "userConfig", state: "not supported yet", reason: "plugin options are not asked for; ${user_config.*} stays unset" });
  if (manifest.channels !== undefined) out.push({ part: "channels", state: "not supported yet" });
  if (manifest.workflows !== undefined) out.push({ part: "workflows", state: "not supported yet" });
  return out;
}
