/**
 * The sandbox's view of the machine, built from the same rules the permission evaluator decides by
 * (DESIGN rule 5: static analysis is the first line, the sandbox the last). Pure apart from
 * `existsSync` and glob expansion; never throws.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { SandboxSettings } from "../config/schema.ts";
import type { CompiledPathRule } from "../permission/paths.ts";
import type { RuleSet } from "../permission/rule-set.ts";

export type SandboxPolicy = {
  /** Paths (globs allowed) a sandboxed command cannot read: Read deny rules and `sandbox.filesystem.denyRead`. */
  denyRead: string[];
  allowRead: string[];
  /** Roots a sandboxed command may write: the working directories, the session scratch dir, Edit allow rules. */
  allowWrite: string[];
  /** Literal paths kept read-only inside the writable roots: Edit deny rules, settings files. */
  denyWrite: string[];
  /** Edit deny globs the kernel cannot take as they are; expanded to what exists at each command. */
  denyWriteGlobs: { root: string; pattern: string }[];
  /** Hosts a sandboxed command may reach: `sandbox.network.allowedDomains` and `WebFetch(domain:…)` allow rules. */
  allowedDomains: string[];
  deniedDomains: string[];
};

const GLOB = /[*?[\]{}]/;

/**
 * What a compiled gitignore-style path rule covers, as absolute paths or globs. `secrets/**` was
 * compiled to the anchored `/secrets`, so it becomes `<root>/secrets`; an unanchored name (`.env`)
 * matches at any depth, so it becomes both `<root>/.env` and `<root>/**\/.env`.
 */
export function ruleTargets(rule: Pick<CompiledPathRule, "root" | "realRoot" | "pattern">): string[] {
  const out = new Set<string>();
  const p = rule.pattern.replace(/\/+$/, "");
  for (const root of new Set([rule.root, rule.realRoot])) {
    if (p === "**" || p === "") {
      out.add(root);
      continue;
    }
    const anchored = p.startsWith("/") || p.includes("/");
    const rel = p.replace(/^\/+/, "");
    out.add(join(root, rel));
    if (!anchored) out.add(join(root, "**", rel));
  }
  return [...out];
}

/** `WebFetch(domain:x)` rules of one list, as host patterns (`x`, `*.x`). `domain:*` is left out: it names no host. */
function domainRules(set: Pick<RuleSet, "byList">, list: "allow" | "deny"): string[] {
  const out: string[] = [];
  for (const r of set.byList[list]) {
    if (r.toolName !== "WebFetch" || !r.specifier?.startsWith("domain:")) continue;
    const d = r.specifier.slice(7).trim().toLowerCase().replace(/\.$/, "");
    if (d && d !== "*") out.push(d);
  }
  return out;
}

/** Files that grant permissions or run code at the next session start: never writable from a sandboxed command. */
const SETTINGS_FILES = [".claude/settings.json", ".claude/settings.local.json", ".yoke", ".mcp.json"];

export type PolicyInput = {
  rules: Pick<RuleSet, "byList" | "pathRules">;
  workingDirectories: string[];
  settings?: SandboxSettings;
  /** Directories the host itself needs the command to write (the session scratch dir). */
  scratch: string[];
  /** Directories whose content must stay as it is (the sandbox's own helper binaries). */
  readOnly?: string[];
  /** Credential stores hidden by default (see `credentialPaths`); one that holds a working directory is left out. */
  hidden?: string[];
  /** Folders inside hidden ones that sandboxed commands still read (yoke's helper binaries, session env files). */
  reopened?: string[];
};

/**
 * Where credentials live, hidden from sandboxed commands unless `sandbox.filesystem.allowRead` reopens
 * them: cloud, ssh, gpg, package-registry and git credentials, and yoke's and Claude Code's own folders
 * (transcripts, tokens).
 */
export function credentialPaths(home: string, own: string[]): string[] {
  const inHome = [".ssh", ".aws", ".gnupg", ".config/gcloud", ".azure", ".kube", ".docker", ".netrc", ".git-credentials", ".npmrc", ".pypirc", ".claude.json"];
  return [...inHome.map((p) => join(home, p)), ...own];
}

export function buildPolicy(o: PolicyInput): SandboxPolicy {
  const fs = o.settings?.filesystem ?? {};
  const net = o.settings?.network ?? {};
  const denyRead = new Set<string>(fs.denyRead ?? []);
  const holdsWorkingDir = (p: string) => o.workingDirectories.some((d) => d === p || d.startsWith(`${p}/`));
  for (const p of o.hidden ?? []) if (!holdsWorkingDir(p)) denyRead.add(p);
  for (const pr of o.rules.pathRules.deny.Read) for (const t of ruleTargets(pr.compiled)) denyRead.add(t);

  const allowWrite = new Set<string>([...o.workingDirectories, ...o.scratch, ...(fs.allowWrite ?? [])]);
  for (const pr of o.rules.pathRules.allow.Edit) {
    // Only literal allow rules widen the writable area: a glob would have to be expanded to its widest reading.
    for (const t of ruleTargets(pr.compiled)) if (!GLOB.test(t)) allowWrite.add(t);
  }

  const denyWrite = new Set<string>(fs.denyWrite ?? []);
  const denyWriteGlobs: SandboxPolicy["denyWriteGlobs"] = [];
  for (const pr of o.rules.pathRules.deny.Edit) {
    for (const t of ruleTargets(pr.compiled)) {
      if (!GLOB.test(t)) denyWrite.add(t);
      else {
        const root = t.slice(0, t.search(GLOB)).replace(/\/[^/]*$/, "") || "/";
        denyWriteGlobs.push({ root, pattern: t.slice(root.length).replace(/^\/+/, "") });
      }
    }
  }
  for (const d of o.workingDirectories) {
    for (const f of SETTINGS_FILES) if (existsSync(join(d, f))) denyWrite.add(join(d, f));
    // The library guards these only in the folder yoke started in; every working directory's repository needs them.
    for (const f of [".git/hooks", ".git/config"]) if (existsSync(join(d, f))) denyWrite.add(join(d, f));
  }
  for (const d of o.readOnly ?? []) denyWrite.add(d);

  return {
    denyRead: [...denyRead],
    allowRead: [...(o.reopened ?? []), ...(fs.allowRead ?? [])],
    allowWrite: [...allowWrite],
    denyWrite: [...denyWrite],
    denyWriteGlobs,
    allowedDomains: [...new Set([...(net.allowedDomains ?? []), ...domainRules(o.rules, "allow")])],
    deniedDomains: [...new Set([...(net.deniedDomains ?? []), ...domainRules(o.rules, "deny")])],
  };
}

/** Expands Edit deny globs to the paths that exist now (bounded), so the kernel can pin each one. Never throws. */
export function expandDenyWriteGlobs(globs: SandboxPolicy["denyWriteGlobs"], limit = 2000): string[] {
  const out: string[] = [];
  for (const g of globs) {
    try {
      for (const rel of new Bun.Glob(g.pattern).scanSync({ cwd: g.root, dot: true, onlyFiles: false, followSymlinks: false })) {
        out.push(join(g.root, rel));
        if (out.length >= limit) return out;
      }
    } catch {}
  }
  return out;
}
