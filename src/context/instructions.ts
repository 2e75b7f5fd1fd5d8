import { readdirSync, readFileSync, realpathSync, statSync, type Stats } from "node:fs";
import { userHome } from "../util/home.ts";
import { dirname, isAbsolute, join, parse, relative, resolve, sep } from "node:path";
import ignore from "ignore";
import type { LoadedSettings, SettingsLevel } from "../config/load.ts";
import { claudeUserDir, managedDir } from "../config/paths.ts";
import { discoverClawInstructions } from "./claw-code.ts";
import { splitFrontmatter } from "../util/frontmatter.ts";
import { findImports, isTextPath, parsePathsField, stripBlockHtmlComments } from "./markdown.ts";
import { estimateTokens, type InstructionFile, type InstructionLayer, type InstructionLoader, type InstructionSet } from "./types.ts";
import { isTruthy } from "../util/env.ts";

export type DiscoverOptions = {
  cwd: string;
  env?: Record<string, string | undefined>;
  settings: LoadedSettings;
  /** Let project and local files `@import` files outside the project (git root, else cwd). User and managed files always may. */
  allowExternalImports?: boolean;
  /** Defaults to the `instructionLoader` setting, then "claude-code". */
  loader?: InstructionLoader;
  /** `--setting-sources`: user files need "user", project files "project", CLAUDE.local.md "local". Default: all three. */
  settingSources?: SettingsLevel[];
  /** `--bare`: no instruction files except those of `additionalDirectories`. */
  bare?: boolean;
  /** `--add-dir` directories; their CLAUDE.md, .claude/CLAUDE.md and rules load only when env CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD is truthy. */
  additionalDirectories?: string[];
  /** Real paths already attached lazily in this session (kept across cache rebuilds so nothing is attached twice). */
  attached?: Set<string>;
  /** Receives every path whose existence or mtime the result depends on (for the cache). */
  probes?: Set<string>;
};

export const MAX_INSTRUCTION_FILE_BYTES = 4 * 1024 * 1024;
/** The top file is depth 0; depth 5 is refused, so at most 4 hops load (contracts §8). */
const MAX_IMPORT_DEPTH = 5;

type Conditional = { file: InstructionFile; body: string; base: string; matches: (rel: string) => boolean };

type Ctx = {
  cwd: string;
  home: string;
  /** The git root above cwd (else cwd), found on first use: only imports need it. */
  projectRoot: () => string;
  allowExternal: boolean;
  excludes: Array<{ pattern: string; glob: InstanceType<typeof Bun.Glob> }>;
  /** File id (device:inode) → the path it was first loaded as. */
  processed: Map<string, string>;
  probes: Set<string> | undefined;
  conditional: Conditional[];
};

function probe(ctx: Ctx, path: string): Stats | undefined {
  ctx.probes?.add(path);
  try {
    // No exception for a missing file: most candidates are missing, and throwing costs more than the stat.
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function realOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

const within = (root: string, p: string) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);

function skipped(layer: InstructionLayer, path: string, size: number, reason: string, parent?: string): InstructionFile {
  return { layer, path, size, tokens: 0, status: "skipped", reason, content: "", loader: "claude-code", ...(parent ? { parent } : {}) };
}

type LoadArgs = { layer: InstructionLayer; depth: number; parent?: string; inRules?: boolean; out: InstructionFile[]; stat?: Stats };

/** Loads one file and its imports into `out`. Conditional rules go to ctx.conditional instead (status deferred). */
function loadFile(ctx: Ctx, path: string, a: LoadArgs): void {
  const st = a.stat ?? probe(ctx, path);
  if (!st) {
    if (a.parent) a.out.push(skipped(a.layer, path, 0, "imported file not found", a.parent));
    return;
  }
  if (!st.isFile()) return;
  // Device and inode identify a file however it was reached (symlinks, `..`), without a realpath per file.
  const id = fileId(st);
  const first = ctx.processed.get(id);
  if (first !== undefined) {
    if (a.parent) a.out.push({ ...skipped(a.layer, path, st.size, `already loaded as ${first}`, a.parent), status: "deduplicated" });
    return;
  }
  ctx.processed.set(id, path);
  if (a.layer !== "managed") {
    const norm = path.replaceAll("\\", "/");
    const hit = ctx.excludes.find((e) => e.glob.match(norm));
    if (hit) return void a.out.push(skipped(a.layer, path, st.size, `claudeMdExcludes: "${hit.pattern}"`, a.parent));
  }
  if (st.size > MAX_INSTRUCTION_FILE_BYTES)
    return void a.out.push(skipped(a.layer, path, st.size, "larger than 4 MiB", a.parent));
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch (e) {
    return void a.out.push(skipped(a.layer, path, st.size, `unreadable: ${(e as NodeJS.ErrnoException).code ?? e}`, a.parent));
  }
  const { data, body: afterFm } = splitFrontmatter(raw, !!a.inRules);
  const body = stripBlockHtmlComments(afterFm);
  const globs = a.inRules ? parsePathsField(data) : null;
  const base: InstructionFile = {
    layer: a.layer,
    path,
    size: st.size,
    tokens: 0,
    status: "included",
    content: body.trim(),
    loader: "claude-code",
    ...(a.parent ? { parent: a.parent } : {}),
  };
  if (globs) {
    let ig: ReturnType<typeof ignore> | null = null;
    const ruleBase = a.layer === "managed" || a.layer === "user" ? ctx.cwd : dirname(dirname(rulesRootOf(path)));
    ctx.conditional.push({
      file: { ...base, status: "deferred", globs, reason: `paths: ${Array.isArray(data?.paths) ? data.paths.join(", ") : String(data?.paths)}` },
      body,
      base: ruleBase,
      matches: (rel) => (ig ??= ignore().add(globs)).ignores(rel),
    });
    return;
  }
  if (!base.content) return void a.out.push({ ...base, status: "skipped", reason: "empty after stripping frontmatter and comments" });
  base.tokens = estimateTokens(base.content);
  base.loadReason = a.parent ? "include" : "session_start";
  a.out.push(base);
  followImports(ctx, path, body, a);
}

const fileId = (st: Stats) => `${st.dev}:${st.ino}`;

// A rules file's `.claude/rules` directory, found by walking up; the rule's base is the folder holding `.claude`.
function rulesRootOf(path: string): string {
  let d = dirname(path);
  while (!(d.endsWith(`${sep}.claude${sep}rules`) || d.endsWith("/.claude/rules"))) {
    const up = dirname(d);
    if (up === d) return dirname(path);
    d = up;
  }
  return d;
}

function followImports(ctx: Ctx, path: string, body: string, a: LoadArgs): void {
  const refs = findImports(body);
  if (refs.length === 0) return;
  const fromDir = dirname(realOf(path));
  for (const ref of refs) {
    const target = ref.startsWith("~/") ? join(ctx.home, ref.slice(2)) : resolve(fromDir, ref);
    const looksLikeFile = ref.includes("/") || ref.includes(".");
    if (a.depth + 1 >= MAX_IMPORT_DEPTH) {
      if (probe(ctx, target)) a.out.push(skipped(a.layer, target, 0, "import depth limit: at most 4 hops", path));
      continue;
    }
    if (!isTextPath(target)) {
      if (looksLikeFile && probe(ctx, target)) a.out.push(skipped(a.layer, target, 0, "not a text file", path));
      continue;
    }
    const root = ctx.projectRoot();
    const external = !within(root, target) && !within(root, realOf(target));
    if (external && a.layer !== "user" && a.layer !== "managed" && !ctx.allowExternal) {
      if (probe(ctx, target)) a.out.push(skipped(a.layer, target, 0, `outside the project (${root}); external imports are not allowed`, path));
      continue;
    }
    if (!looksLikeFile && !probe(ctx, target)) continue;
    loadFile(ctx, target, { layer: a.layer, depth: a.depth + 1, parent: path, out: a.out });
  }
}

/** Every `*.md` under a rules directory (recursive, symlinks followed once), sorted for a stable prompt. */
function listRules(ctx: Ctx, dir: string, seen = new Set<string>(), st?: Stats): string[] {
  ctx.probes?.add(dir);
  // Symlinked directories can form cycles; a directory's identity is only needed below the top.
  if (st) {
    if (seen.has(fileId(st))) return [];
    seen.add(fileId(st));
  }
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))) {
    const p = join(dir, e.name);
    const isLink = e.isSymbolicLink();
    if (e.isDirectory() || isLink) {
      const sub = probe(ctx, p);
      if (sub?.isDirectory()) {
        if (seen.size === 0) {
          const top = probe(ctx, dir);
          if (top) seen.add(fileId(top));
        }
        out.push(...listRules(ctx, p, seen, sub));
        continue;
      }
      if (!sub?.isFile()) continue;
    } else if (!e.isFile()) continue;
    if (e.name.endsWith(".md")) out.push(p);
  }
  return out;
}

function loadRules(ctx: Ctx, dir: string, layer: InstructionLayer, out: InstructionFile[]): void {
  for (const p of listRules(ctx, dir)) loadFile(ctx, p, { layer, depth: 0, inRules: true, out });
}

/** Loads one directory's project and local files (CLAUDE.md or AGENTS.md, .claude/…, rules, CLAUDE.local.md). */
function loadDirectory(ctx: Ctx, dir: string, sources: Set<SettingsLevel>, out: InstructionFile[]): void {
  if (sources.has("project")) {
    const claudeMd = join(dir, "CLAUDE.md");
    const dotClaude = join(dir, ".claude");
    const hasDotClaude = !!probe(ctx, dotClaude)?.isDirectory();
    const claudeSt = probe(ctx, claudeMd);
    const dotClaudeSt = hasDotClaude ? probe(ctx, join(dotClaude, "CLAUDE.md")) : undefined;
    const hasClaudeMd = !!claudeSt?.isFile();
    const hasDotClaudeMd = !!dotClaudeSt?.isFile();
    const agentsMd = join(dir, "AGENTS.md");
    if (hasClaudeMd || hasDotClaudeMd) {
      if (hasClaudeMd) loadFile(ctx, claudeMd, { layer: "project", depth: 0, out, stat: claudeSt });
      if (hasDotClaudeMd) loadFile(ctx, join(dotClaude, "CLAUDE.md"), { layer: "project", depth: 0, out, stat: dotClaudeSt });
      // Listed so `yoke context` can say why an AGENTS.md is not loaded (only the top-level one, to keep stats few).
      const st = probe(ctx, agentsMd);
      if (st?.isFile()) out.push(skipped("project", agentsMd, st.size, "CLAUDE.md exists in this directory; AGENTS.md is only a fallback"));
    } else {
      loadFile(ctx, agentsMd, { layer: "project", depth: 0, out });
      if (hasDotClaude) loadFile(ctx, join(dotClaude, "AGENTS.md"), { layer: "project", depth: 0, out });
    }
    if (hasDotClaude) loadRules(ctx, join(dotClaude, "rules"), "project", out);
  }
  if (sources.has("local")) loadFile(ctx, join(dir, "CLAUDE.local.md"), { layer: "local", depth: 0, out });
}

/** Directories from the top of the tree down to `dir` (the filesystem root itself is not visited). */
function ancestorsTopDown(dir: string): string[] {
  const out: string[] = [];
  let d = resolve(dir);
  while (d !== parse(d).root) {
    out.push(d);
    d = dirname(d);
  }
  return out.reverse();
}

function compileExcludes(settings: LoadedSettings) {
  const pats = settings.merged.claudeMdExcludes ?? [];
  const out: Ctx["excludes"] = [];
  for (const pattern of pats) {
    const p = pattern.replaceAll("\\", "/");
    out.push({ pattern, glob: new Bun.Glob(p) });
    // A symlinked static prefix (e.g. /tmp on macOS) is matched in its resolved form too.
    if (isAbsolute(p)) {
      const stat = p.split("/").findIndex((seg) => /[*?[{]/.test(seg));
      const prefix = (stat < 0 ? p.split("/") : p.split("/").slice(0, stat)).join("/");
      const real = prefix ? realOf(prefix) : prefix;
      if (real !== prefix) out.push({ pattern, glob: new Bun.Glob(real + p.slice(prefix.length)) });
    }
  }
  return out;
}

/**
 * Finds the session's instruction files (internals §1.1, contracts §8). Never throws: unreadable
 * or oversized files come back with status "skipped" and a reason. Synchronous, and it stats only
 * the candidates of each directory from the top down to cwd, never walking the tree below.
 */
export function discoverInstructions(opts: DiscoverOptions): InstructionSet {
  const env = opts.env ?? process.env;
  const loader = opts.loader ?? opts.settings.merged.instructionLoader ?? "claude-code";
  const cwd = resolve(opts.cwd);
  const extraDirs = isTruthy(env.CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD) ? (opts.additionalDirectories ?? []) : [];
  const disabled = isTruthy(env.CLAUDE_CODE_DISABLE_CLAUDE_MDS);
  const off = disabled || !!opts.bare;
  if (loader === "claw-code")
    return off ? { loader, files: [], onFileRead: () => [] } : discoverClawInstructions({ cwd: opts.cwd, probes: opts.probes });
  const sources = new Set<SettingsLevel>(opts.settingSources ?? ["user", "project", "local"]);
  const dirs = ancestorsTopDown(cwd);
  let projectRoot: string | undefined;
  const ctx: Ctx = {
    cwd,
    home: userHome(env),
    projectRoot: () => {
      if (projectRoot === undefined) {
        projectRoot = cwd;
        for (let i = dirs.length - 1; i >= 0; i--) {
          if (probe(ctx, join(dirs[i]!, ".git"))) {
            projectRoot = dirs[i]!;
            break;
          }
        }
      }
      return projectRoot;
    },
    allowExternal: !!opts.allowExternalImports,
    excludes: compileExcludes(opts.settings),
    processed: new Map(),
    probes: opts.probes,
    conditional: [],
  };
  const files: InstructionFile[] = [];
  const attached = opts.attached ?? new Set<string>();
  if (!off) {
    const mdir = managedDir(env as NodeJS.ProcessEnv);
    loadFile(ctx, join(mdir, "CLAUDE.md"), { layer: "managed", depth: 0, out: files });
    loadRules(ctx, join(mdir, ".claude", "rules"), "managed", files);
    if (sources.has("user")) {
      const udir = claudeUserDir(env as NodeJS.ProcessEnv);
      loadFile(ctx, join(udir, "CLAUDE.md"), { layer: "user", depth: 0, out: files });
      loadRules(ctx, join(udir, "rules"), "user", files);
    }
    for (const d of dirs) loadDirectory(ctx, d, sources, files);
  }
  if (!disabled) {
    for (const d of extraDirs) {
      const abs = resolve(cwd, d);
      loadFile(ctx, join(abs, "CLAUDE.md"), { layer: "project", depth: 0, out: files });
      loadFile(ctx, join(abs, ".claude", "CLAUDE.md"), { layer: "project", depth: 0, out: files });
      loadRules(ctx, join(abs, ".claude", "rules"), "project", files);
    }
  }
  const startupConditional = ctx.conditional.slice();
  // Directories below cwd are loaded on the first read inside them; their conditional rules are kept per directory.
  const nestedConditional = new Map<string, Conditional[]>();
  files.push(...startupConditional.map((c) => c.file));

  const attach = (c: Conditional, trigger: string, out: InstructionFile[]) => {
    const real = realOf(c.file.path);
    if (attached.has(real)) return;
    attached.add(real);
    Object.assign(c.file, { status: "included", reason: `attached when ${trigger} was read`, content: c.body.trim(), loadReason: "path_glob_match" });
    c.file.tokens = estimateTokens(c.file.content);
    if (c.file.content) out.push(c.file);
    followImports(ctx, c.file.path, c.body, { layer: c.file.layer, depth: 0, out });
  };
  const matching = (c: Conditional, abs: string) => {
    const rel = relative(c.base, abs);
    return !!rel && !rel.startsWith("..") && !isAbsolute(rel) && c.matches(rel.split(sep).join("/"));
  };

  const onFileRead = (absPath: string): InstructionFile[] => {
    if (off) return [];
    const abs = resolve(cwd, absPath);
    if (!within(cwd, abs) || abs === cwd) return [];
    const out: InstructionFile[] = [];
    try {
      for (const c of startupConditional)
        if ((c.file.layer === "managed" || c.file.layer === "user") && matching(c, abs)) attach(c, abs, out);
      const below: string[] = [];
      for (let d = dirname(abs); d !== cwd && within(cwd, d); d = dirname(d)) below.unshift(d);
      for (const d of below) {
        let rules = nestedConditional.get(d);
        if (!rules) {
          const before = ctx.conditional.length;
          const dirFiles: InstructionFile[] = [];
          loadDirectory(ctx, d, sources, dirFiles);
          for (const f of dirFiles) {
            const real = realOf(f.path);
            if (f.status !== "included" || attached.has(real)) continue;
            attached.add(real);
            out.push({ ...f, reason: `nested instructions, attached when ${abs} was read`, loadReason: f.parent ? "include" : "nested_traversal" });
          }
          rules = ctx.conditional.slice(before);
          nestedConditional.set(d, rules);
        }
        for (const c of rules) if (matching(c, abs)) attach(c, abs, out);
      }
      for (const c of startupConditional)
        if (c.file.layer !== "managed" && c.file.layer !== "user" && matching(c, abs)) attach(c, abs, out);
    } catch {
      return out;
    }
    files.push(...out.filter((f) => !files.includes(f)));
    return out;
  };
  return { loader: "claude-code", files, onFileRead };
}
