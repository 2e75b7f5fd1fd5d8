import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAgentFile } from "../../agent/parse.ts";
import type { LoadedPlugin } from "../../plugin/loader.ts";
import { defineCommand } from "citty";
import { parseArgv } from "../args.ts";
import { runFlagArgs } from "../command-tree.ts";
import { builtinTools } from "../builtin-tools.ts";
import { compose } from "../compose.ts";
import type { PluginRuntime } from "../plugin-wiring.ts";
import { writeOut } from "../../util/output.ts";
import type { PartState } from "../../plugin/parts.ts";
import type { Extensions } from "../../extension/runtime.ts";
import type { AgentDefinition } from "../../agent/types.ts";
import type { McpServerState } from "../../mcp/manager.ts";

/** What the session made of each plugin's parts, for their real state. */
export type PartsContext = { extensions: Pick<Extensions, "commands" | "problems">; agentDefs: AgentDefinition[]; mcpServers: McpServerState[] };

/** One row of `yoke plugins list --json`. */
export type PluginRow = {
  name: string;
  version: string | null;
  kind: "yoke" | "claude";
  origin: string;
  path: string;
  status: "enabled" | "disabled" | "error";
  /** Why it is disabled, or its load/setup error. */
  reason?: string;
  description?: string;
  /** Claude Code plugin folders: what they bring. */
  hooks?: number;
  commands?: string[];
  agents?: string[];
  skills?: string[];
  /** Claude Code plugins: each part with its state (loaded, failed and why, not supported yet). */
  parts?: PartState[];
};

const countHooks = (h: Record<string, unknown> | undefined) =>
  Object.values(h ?? {}).reduce<number>((n, groups) => n + (groups as Array<{ hooks: unknown[] }>).reduce((m, g) => m + g.hooks.length, 0), 0);

/** Why each agent file under these folders does not load (the Agent tool skipped it with a warning). */
function agentProblems(dirs: string[]): string[] {
  const out: string[] = [];
  for (const dir of dirs) {
    let files: string[] = [];
    try {
      files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith(".md"));
    } catch {
      continue;
    }
    for (const f of files) {
      const file = join(dir, f);
      try {
        const r = parseAgentFile(readFileSync(file, "utf8"), file, "plugin");
        if (!r.ok) out.push(r.error);
      } catch (e) {
        out.push(`${file}: ${(e as Error).message}`);
      }
    }
  }
  return out;
}

const under = (file: string, root: string) => file === root || file.startsWith(`${root}/`);

/** The state of each part of a Claude Code plugin as the session loaded it. Pure. */
export function claudeParts(p: Extract<LoadedPlugin, { kind: "claude" }>, ctx: PartsContext): PartState[] {
  const i = p.info;
  const parts: PartState[] = [];
  const mine = ctx.extensions.commands.filter((c) => c.plugin?.name === i.name && c.plugin.root === i.root);
  const problems = ctx.extensions.problems.filter((x) => under(x.file.replace(/:\d+$/, ""), i.root));
  const part = (name: string, items: string[], failed: string[]) => {
    if (!items.length && !failed.length) return;
    parts.push(failed.length ? { part: name, state: "failed", items, reason: failed.join("; ") } : { part: name, state: "loaded", items });
  };
  if (i.hooks) {
    const n = countHooks(i.hooks);
    parts.push({ part: "hooks", state: "loaded", items: Object.keys(i.hooks).map((e) => e), reason: `${n} handler${n === 1 ? "" : "s"} from ${i.hooksFile ?? "hooks/hooks.json"}` });
  }
  const skillProblems = problems.filter((x) => /SKILL\.md/.test(x.file)).map((x) => `${x.file}: ${x.message}`);
  part("skills", mine.filter((c) => c.kind === "skill").map((c) => c.name), skillProblems);
  part("commands", mine.filter((c) => c.kind === "command").map((c) => c.name), problems.filter((x) => !/SKILL\.md/.test(x.file)).map((x) => `${x.file}: ${x.message}`));
  const agents = ctx.agentDefs.filter((a) => a.source === "plugin" && a.name.startsWith(`${i.name}:`)).map((a) => a.name);
  part("agents", agents, agentProblems(i.paths.agents));
  const servers = ctx.mcpServers.filter((s) => s.scope === "plugin" && (s.name.startsWith(`plugin:${i.name}:`) || under(s.source, i.root)));
  if (servers.length) {
    const bad = servers.filter((s) => s.status !== "connected" && s.status !== "pending");
    parts.push({
      part: "mcpServers",
      state: bad.length ? "failed" : "loaded",
      items: servers.map((s) => `${s.name} (${s.status})`),
      ...(bad.length ? { reason: bad.map((s) => `${s.name}: ${s.error ?? s.status}`).join("; ") } : {}),
    });
  }
  parts.push(...i.unsupported);
  return parts;
}

function loadedRow(p: LoadedPlugin, errors: PluginRuntime["errors"], ctx?: PartsContext): PluginRow {
  const err = errors.find((e) => e.path === p.path);
  const status = err ? ("error" as const) : ("enabled" as const);
  if (p.kind === "yoke")
    return {
      name: p.plugin.name,
      version: p.plugin.version ?? null,
      kind: "yoke",
      origin: p.origin,
      path: p.path,
      status,
      ...(err ? { reason: `setup failed: ${err.message}` } : {}),
      ...(p.plugin.description ? { description: p.plugin.description } : {}),
    };
  const i = p.info;
  return {
    name: i.name,
    version: i.version ?? null,
    kind: "claude",
    origin: p.origin,
    path: p.path,
    status,
    ...(err ? { reason: err.message } : {}),
    ...(i.description ? { description: i.description } : {}),
    hooks: countHooks(i.hooks),
    commands: i.commands,
    agents: i.agents,
    skills: i.skills,
    ...(ctx ? { parts: claudeParts(p, ctx) } : {}),
  };
}

/** Every plugin yoke found: running, disabled or replaced (with why), and the ones that failed to load. Pure. */
export function pluginRows(rt: PluginRuntime, ctx?: PartsContext): PluginRow[] {
  const rows = rt.loaded.map((p) => loadedRow(p, rt.errors, ctx));
  for (const s of rt.skipped)
    rows.push({ name: s.name, version: s.version ?? null, kind: s.kind, origin: s.origin, path: s.path, status: "disabled", reason: s.reason });
  const known = new Set(rt.loaded.map((p) => p.path));
  for (const e of rt.errors) {
    if (known.has(e.path)) continue;
    rows.push({ name: "(failed to load)", version: null, kind: "yoke", origin: "-", path: e.path, status: "error", reason: e.message });
  }
  return rows;
}

/** Plain-text listing, one block per plugin. Pure. */
export function formatPluginRows(rows: PluginRow[]): string {
  if (rows.length === 0) return "No plugins.\n";
  const out: string[] = [];
  for (const r of rows) {
    const state = r.status === "enabled" ? "enabled" : `${r.status}${r.reason ? ` (${r.reason})` : ""}`;
    out.push(`${r.name}${r.version ? ` ${r.version}` : ""}  [${r.kind === "claude" ? "Claude Code plugin" : "yoke plugin"}, ${r.origin}]  ${state}`);
    out.push(`    path: ${r.path}`);
    if (r.description) out.push(`    ${r.description}`);
    if (r.parts) {
      if (!r.parts.length) out.push("    (no commands, agents, skills, hooks or MCP servers)");
      for (const p of r.parts) {
        const what = p.items?.length ? `: ${p.items.join(", ")}` : "";
        out.push(`    ${p.part} ${p.state}${what}${p.reason ? ` (${p.reason})` : ""}`);
      }
    } else if (r.kind === "claude") {
      out.push(`    hooks: ${r.hooks ?? 0}`);
      out.push(`    commands: ${r.commands?.join(", ") || "-"}`);
      out.push(`    agents: ${r.agents?.join(", ") || "-"}`);
      out.push(`    skills: ${r.skills?.join(", ") || "-"}`);
    }
  }
  return `${out.join("\n")}\n`;
}

/** `yoke plugins list [--json]` (issue 4 item 7). Needs no credentials. Returns 0. */
async function listPlugins(tail: string[]): Promise<number> {
  const json = tail.includes("--json");
  const args = parseArgv(tail.filter((a) => a !== "--json"));
  const rt = await compose({ args, cwd: process.cwd(), builtinTools: builtinTools(), requireCredentials: false });
  // A report shows each server as it ends up, not as it was when a first request would have left.
  await rt.mcp.settled();
  try {
    // A plugin server the MCP policy keeps off never starts, but its plugin's row still says so and why.
    const blocked = rt.mcp.configs().flatMap((c): McpServerState[] =>
      c.blocked && c.scope === "plugin" ? [{ name: c.name, scope: c.scope, source: c.source, status: "disabled", error: c.blocked, tools: [], hasResources: false, hasPrompts: false, prompts: [] }] : [],
    );
    const rows = pluginRows(rt.plugins, { extensions: rt.extensions, agentDefs: rt.agentDefs, mcpServers: [...rt.mcp.servers(), ...blocked] });
    writeOut(json ? `${JSON.stringify(rows, null, 2)}\n` : formatPluginRows(rows));
    return 0;
  } finally {
    await rt.shutdown();
  }
}

export const command = defineCommand({
  meta: { name: "plugins", description: "Plugins yoke found: running, disabled (and why), failed to load" },
  subCommands: {
    list: defineCommand({
      meta: { name: "list", description: "Every plugin with its origin, path and status" },
      args: { json: { type: "boolean", description: "Print JSON" }, ...runFlagArgs(["plugin-dir", "settings", "setting-sources", "trust-workspace", "bare"]) },
      run: ({ rawArgs }) => listPlugins(rawArgs),
    }),
  },
});
