/**
 * `yoke trust [PATH]`, `yoke trust --list [--json]`, `yoke trust --revoke [PATH]` (issue 16 points 10-11):
 * trusting a folder applies what it ships (settings allow rules, env, hooks, `.mcp.json`, plugins) and pins
 * each of those files by sha256, so a later change untrusts the folder until it is trusted again.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { loadSettings } from "../../config/load.ts";
import { collectManifest, diffManifest, type ManifestEntry } from "../../trust/manifest.ts";
import { untrustedView } from "../../trust/gate.ts";
import { readTrustStore, revokeTrust, trustKey, trustStorePath } from "../../trust/store.ts";
import { manifestOf, trustFolder } from "../../trust/workspace.ts";
import { defineCommand } from "citty";
import { writeOut } from "../../util/output.ts";
import { UsageError } from "../args.ts";


function folderArg(raw: string | undefined): string {
  const abs = resolve(raw ?? process.cwd());
  let isDir = false;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {}
  if (!isDir) throw new UsageError(`${raw ?? abs}: no such folder`);
  return trustKey(abs);
}

const short = (h: string) => h.slice(0, 12);

function describe(files: ManifestEntry[]): string[] {
  const w = Math.max(0, ...files.map((f) => f.path.length));
  return files.map((f) => `  ${f.kind.padEnd(11)} ${f.path.padEnd(w)}  ${short(f.sha256)}`);
}

function store() {
  try {
    return readTrustStore(trustStorePath());
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

function list(json: boolean): number {
  const rows = Object.entries(store().folders).map(([folder, rec]) => {
    let status = "ok";
    let changed: string[] = [];
    let exists = true;
    try {
      exists = statSync(folder).isDirectory();
    } catch {
      exists = false;
    }
    if (!exists) status = "missing";
    else {
      try {
        const loaded = loadSettings({ cwd: folder, settingSources: ["project", "local"] });
        changed = diffManifest(rec.files, manifestOf(folder, loaded)).map((c) => `${c.path} (${c.change})`);
        if (changed.length) status = "changed";
      } catch (e) {
        status = "broken";
        changed = [(e as Error).message.split("\n")[0] ?? ""];
      }
    }
    return { folder, trustedAt: rec.trustedAt, files: rec.files.length, status, changed };
  });
  if (json) writeOut(`${JSON.stringify(rows, null, 2)}\n`);
  else if (!rows.length) writeOut("No trusted folders.\n");
  else
    for (const r of rows)
      writeOut(`${r.folder}  ${r.status}  (${r.files} files pinned, trusted ${r.trustedAt})${r.changed.length ? `\n  changed: ${r.changed.join(", ")}` : ""}\n`);
  return 0;
}

type TrustArgs = { path?: string; list: boolean; json: boolean; revoke: boolean };

/** `yoke trust`: trust, list or revoke. Throws UsageError (store, folder) or SettingsError (a broken settings file). */
function trustCommand(a: TrustArgs): number {
  if (a.list) {
    if (a.path !== undefined || a.revoke) throw new UsageError("--list takes no folder and no --revoke");
    return list(a.json);
  }
  const folder = folderArg(a.path);
  if (a.revoke) {
    let removed: boolean;
    try {
      removed = revokeTrust(trustStorePath(), folder);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    if (!removed) throw new UsageError(`${folder} is not trusted`);
    writeOut(`No longer trusted: ${folder}\n`);
    return 0;
  }
  // The folder's own settings only: what trusting it turns on. Throws SettingsError naming a broken file.
  const loaded = loadSettings({ cwd: folder, settingSources: ["project", "local"] });
  let files: ManifestEntry[];
  try {
    files = trustFolder(folder, loaded, process.env);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const out = [`Trusted ${folder}.`];
  if (files.length) out.push(`Pinned ${files.length} file${files.length === 1 ? "" : "s"} (a change to any of them untrusts the folder again):`, ...describe(files));
  else out.push("It ships no settings, hooks, MCP servers or plugins yet; any that appear later need `yoke trust` again.", ...describe(collectManifest(folder, [])));
  const applied = loaded.sources.map((s) => ({ path: s.path, keys: untrustedView(s.settings).dropped })).filter((a) => a.keys.length);
  if (applied.length) out.push("Now applied:", ...applied.map((a) => `  ${a.path}: ${a.keys.join(", ")}`));
  writeOut(`${out.join("\n")}\n`);
  return 0;
}

export const command = defineCommand({
  meta: {
    name: "trust",
    description:
      "Trust a folder: its .claude/settings*.json apply in full (allow rules, additionalDirectories, env, hooks, apiKeyHelper) and its .mcp.json servers and .yoke/plugins load, each file pinned by hash. For one run (CI): --trust-workspace or YOKE_TRUST_WORKSPACE=1.",
  },
  args: {
    path: { type: "positional", required: false, description: "The folder (default: this one)" },
    list: { type: "boolean", description: "Trusted folders and whether their files still match" },
    json: { type: "boolean", description: "With --list: print JSON" },
    revoke: { type: "boolean", description: "Withdraw trust from the folder" },
  },
  run: ({ args }) => {
    if (args._.length > 1) throw new UsageError(`one folder at a time (got ${args._.length})`);
    return trustCommand({ path: args.path, list: !!args.list, json: !!args.json, revoke: !!args.revoke });
  },
});
