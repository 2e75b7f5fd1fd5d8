import type { LoadedPlugin } from "../../plugin/loader.ts";
import { defineCommand } from "citty";
import { parseArgv } from "../args.ts";
import { runFlagArgs } from "../command-tree.ts";
import { builtinTools } from "../builtin-tools.ts";
import { compose } from "../compose.ts";
import type { PluginRuntime } from "../plugin-wiring.ts";
import { writeOut } from "../../util/output.ts";

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
  /** Claude Code plugin folders: what they bring (commands, agents and skills are listed, not run yet). */
  hooks?: number;
  commands?: string[];
  agents?: string[];
  skills?: string[];
};

const countHooks = (h: Record<string, unknown> | undefined) =>
  Object.values(h ?? {}).reduce<number>((n, groups) => n + (groups as Array<{ hooks: unknown[] }>).reduce((m, g) => m + g.hooks.length, 0), 0);

function loadedRow(p: LoadedPlugin, errors: PluginRuntime["errors"]): PluginRow {
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
  };
}

/** Every plugin yoke found: running, disabled or replaced (with why), and the ones that failed to load. Pure. */
export function pluginRows(rt: PluginRuntime): PluginRow[] {
  const rows = rt.loaded.map((p) => loadedRow(p, rt.errors));
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
    if (r.kind === "claude") {
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
  try {
    const rows = pluginRows(rt.plugins);
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
