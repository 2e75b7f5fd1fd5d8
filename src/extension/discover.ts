import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, type Stats } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { extensionEntry, type FileRole, simpleEntry, skillDir } from "./entry.ts";
import { type DiscoveryCache, statOf } from "./discovery-cache.ts";
import type { ExtensionProblem, ExtensionSource, PluginOrigin, SlashCommand } from "./types.ts";

/** A cap so a stray huge tree under .claude/commands cannot stall startup. */
const MAX_FILES_PER_DIR = 2000;
/** Claude Code caps one skill's listed description (with when_to_use) at this many characters (contracts §6.2). */
export const MAX_LISTED_DESCRIPTION = 1536;

/** Where skills and commands of one level sit; a plugin's folders are namespaced with its name. */
export type ExtensionRoot = {
  source: ExtensionSource;
  skillsDirs: string[];
  commandsDirs: string[];
  plugin?: PluginOrigin;
};

export type DiscoverExtensionsOptions = {
  cwd: string;
  /** `~/.claude` (CLAUDE_CONFIG_DIR). */
  userDir: string;
  /** The managed policy folder (`/etc/claude-code`); its `.claude/skills` and `.claude/commands` rank first. */
  managedDir?: string;
  /** Claude Code plugins that load (`plugin:name` entries). */
  plugins?: ExtensionRoot[];
  /** False leaves out the project's folders (`--setting-sources` without project). Default true. */
  project?: boolean;
  /** False leaves out `~/.claude` (`--setting-sources` without user). Default true. */
  user?: boolean;
  /** What earlier runs made of unchanged files (a stat each instead of a read and a parse). */
  cache?: DiscoveryCache;
};

export type Discovery = { commands: SlashCommand[]; problems: ExtensionProblem[] };

/** Folders from cwd up to the repository root (the first folder holding `.git`), closest first; cwd alone outside a repository. */
export function projectDirs(cwd: string): string[] {
  const out: string[] = [];
  let d = resolve(cwd);
  for (;;) {
    out.push(d);
    if (existsSync(join(d, ".git"))) return out;
    const up = dirname(d);
    if (up === d) return [resolve(cwd)];
    d = up;
  }
}

/** The levels in precedence order, highest first: managed, user, project (closest folder first), then plugins. */
export function extensionRoots(o: DiscoverExtensionsOptions): ExtensionRoot[] {
  const level = (source: ExtensionSource, base: string): ExtensionRoot => ({ source, skillsDirs: [join(base, "skills")], commandsDirs: [join(base, "commands")] });
  const roots: ExtensionRoot[] = [];
  if (o.managedDir) roots.push(level("managed", join(o.managedDir, ".claude")));
  if (o.user !== false) roots.push(level("user", o.userDir));
  if (o.project !== false)
    for (const d of projectDirs(o.cwd)) {
      const base = join(d, ".claude");
      // ~/.claude seen again when cwd sits under HOME: it already counts as the user level.
      if (resolve(base) !== resolve(o.userDir)) roots.push(level("project", base));
    }
  roots.push(...(o.plugins ?? []));
  return roots;
}

/** Bytes read from each file at discovery: the frontmatter and the first lines (bodies load on use). */
const HEAD_BYTES = 2048;
/** The head is enough when the frontmatter block closes inside it (or there is none). */
const headIsEnough = (head: string, size: number) => size < HEAD_BYTES || !head.startsWith("---") || /\n---[ \t]*\r?\n/.test(head.slice(3));
/** One buffer for every head: discovery reads one file at a time, and the text is copied out of it. */
let headBuf: Buffer | undefined;

/**
 * A file's head as discovery needs it; the whole file when its frontmatter runs longer. Throws on a read error.
 * Plain blocking reads (open, one read, close) into a shared buffer: for 150 files they cost less CPU than Bun file
 * slices or FileHandles on the thread pool, whose promises cost more on the main thread than the reads themselves
 * (bench/extensions.ts).
 */
export function readHead(file: string): string {
  const fd = openSync(file, "r");
  try {
    const buf = (headBuf ??= Buffer.allocUnsafe(HEAD_BYTES));
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    const head = buf.toString("utf8", 0, n);
    return headIsEnough(head, n) ? head : readFileSync(file, "utf8");
  } finally {
    closeSync(fd);
  }
}

type Reader = (file: string) => string;

/** Everything besides the file that goes into its entry: a cached entry counts only under the same key. */
const roleKey = (o: FileRole) =>
  `${o.kind}\0${o.name}\0${o.source}\0${o.plugin ? `${o.plugin.name}\0${o.plugin.root}\0${o.plugin.dataDir}` : ""}\0${o.note ?? ""}\0${(o.aliases ?? []).join(",")}`;

/**
 * One file's entry, or null when the file is not there (a skill folder without SKILL.md, a stray file beside the
 * folders). With a cache, an unchanged file's entry comes from it (no read, no parse). Never throws.
 */
function entryFor(file: string, o: FileRole, read: Reader, cache: DiscoveryCache | undefined, st: Stats | undefined | null): SlashCommand | ExtensionProblem | null {
  let key = "";
  if (cache) {
    if (st === undefined) return null;
    if (st) {
      key = roleKey(o);
      const hit = cache.lookup(file, key, st);
      if (hit && entryFits(hit, file, o)) return hit;
    }
  }
  let text: string;
  try {
    text = read(file);
  } catch (e) {
    return isMissing(e) ? null : { file, message: `cannot read: ${(e as Error).message}` };
  }
  const r = simpleEntry(file, o, text) ?? extensionEntry(file, o, text);
  if (cache && st) cache.store(file, key, st, r);
  return r;
}

const strs = (x: unknown) => Array.isArray(x) && x.every((v) => typeof v === "string");
const optional = (x: unknown, type: string) => x === undefined || typeof x === type;

/**
 * Whether a cached entry is one this file in this role could have made: the cache saves a read, it never says where
 * a command's file is, whose it is (its source decides what it may grant) or what it is named. A cache file that
 * says otherwise (broken, or written by someone else) is not believed; the file is read. What only the file's text
 * decides (description, allowed-tools, hooks) is the cache's to say: its file is the user's own (discovery-cache.ts).
 */
function entryFits(e: SlashCommand | ExtensionProblem, file: string, o: FileRole): boolean {
  if (!e || typeof e !== "object") return false;
  if (!("kind" in e)) return typeof e.message === "string" && problemOf(e.file) === file;
  const p = e.plugin;
  return (
    e.file === file &&
    e.kind === o.kind &&
    e.name === o.name &&
    e.source === o.source &&
    e.baseDir === (o.kind === "skill" ? skillDir(file) : null) &&
    strs(e.aliases) &&
    e.aliases.join("\0") === (o.aliases ?? []).join("\0") &&
    (o.plugin ? !!p && p.name === o.plugin.name && p.root === o.plugin.root && p.dataDir === o.plugin.dataDir : p === undefined) &&
    typeof e.description === "string" &&
    strs(e.argNames) &&
    strs(e.allowedTools) &&
    typeof e.disableModelInvocation === "boolean" &&
    typeof e.userInvocable === "boolean" &&
    optional(e.whenToUse, "string") &&
    optional(e.argumentHint, "string") &&
    optional(e.model, "string") &&
    optional(e.hooks, "object") &&
    optional(e.fork, "object")
  );
}

/** The file a problem names (`file:line` for a frontmatter error). */
const problemOf = (f: unknown): string | undefined => (typeof f === "string" ? f.replace(/:\d+$/, "") : undefined);

/** Parses one skill or command file into its metadata, or a problem naming the file (and line). Never throws. */
export function readExtensionFile(
  file: string,
  o: FileRole,
  read: Reader = readHead,
): SlashCommand | ExtensionProblem {
  let text: string;
  try {
    text = read(file);
  } catch (e) {
    return { file, message: `cannot read: ${(e as Error).message}` };
  }
  return simpleEntry(file, o, text) ?? extensionEntry(file, o, text);
}

const isProblem = (x: SlashCommand | ExtensionProblem): x is ExtensionProblem => !("kind" in x);

/** The entries of a skills folder that may hold `<name>/SKILL.md`, not yet checked to (a stat or a failed read says). */
function skillCandidates(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  // One match over all the names, not a callback per name (start-up runs this with the JIT held back).
  return names.length ? (names.join("\0").match(VISIBLE) ?? []).sort() : names;
}

/** Names not starting with a dot, in a list joined with NUL (which no file name holds). */
const VISIBLE = /(?<=^|\0)[^.\0][^\0]*/g;
/** `.md` paths with no hidden file or folder on the way (`.drafts/x.md`, `a/.old.md`), in a list joined with NUL. */
const VISIBLE_MD = new RegExp(`(?<=^|\\0)(?!\\.)(?:(?!${sep === "/" ? "/" : "\\\\"}\\.)[^\\0])*\\.md(?=\\0|$)`, "g");

/** A read that failed because the file is not there (a folder without SKILL.md, a stray file beside the folders). */
const isMissing = (h: unknown) => h instanceof Error && ["ENOENT", "ENOTDIR"].includes((h as NodeJS.ErrnoException).code ?? "");

/** `.md` files under dir, recursively, as paths relative to dir. */
function commandFiles(dir: string): string[] {
  let rel: string[];
  try {
    rel = readdirSync(dir, { recursive: true }) as string[];
  } catch {
    return [];
  }
  if (!rel.length) return rel;
  const md = (rel.join("\0").match(VISIBLE_MD) ?? []).sort();
  return md.length > MAX_FILES_PER_DIR ? md.slice(0, MAX_FILES_PER_DIR) : md;
}

/**
 * One file discovery looks at, in walk order: the root it belongs to (by index), and what its name is made of. The
 * role (name, aliases, note) is made only when the file must be read or looked up: a whole-discovery cache hit needs none.
 */
type Job = { file: string; root: number; kind: "skill" | "command"; rel: string; named?: boolean };

/** Every candidate file of every root, in precedence order: skills before commands within a root. */
function plan(roots: ExtensionRoot[]): Job[] {
  const jobs: Job[] = [];
  roots.forEach((root, i) => {
    // Paths by concatenation onto the folder made normal once (join per file costs more than its stat).
    for (const dir of root.skillsDirs) {
      const names = skillCandidates(dir);
      const d = join(dir, sep);
      for (const n of names.length > MAX_FILES_PER_DIR ? names.slice(0, MAX_FILES_PER_DIR) : names) jobs.push({ file: `${d}${n}${sep}SKILL.md`, root: i, kind: "skill", rel: n });
    }
    for (const dir of root.commandsDirs) {
      // plugin.json may name single command files.
      if (dir.endsWith(".md")) {
        jobs.push({ file: dir, root: i, kind: "command", rel: basename(dir), named: true });
        continue;
      }
      const d = join(dir, sep);
      for (const rel of commandFiles(dir)) jobs.push({ file: d + rel, root: i, kind: "command", rel });
    }
  });
  return jobs;
}

/** What a job's entry is made of besides its file's text. */
function roleOf(job: Job, root: ExtensionRoot): FileRole {
  const prefix = root.plugin ? `${root.plugin.name}:` : "";
  if (job.kind === "skill") return { kind: "skill", name: `${prefix}${job.rel}`, source: root.source, plugin: root.plugin };
  // The usual command, not in a sub-folder: no split.
  if (!job.rel.includes(sep)) return { kind: "command", name: `${prefix}${job.rel.slice(0, -3)}`, aliases: [], source: root.source, plugin: root.plugin, note: undefined };
  const parts = job.rel.slice(0, -3).split(sep);
  const base = parts[parts.length - 1]!;
  const folders = parts.slice(0, -1);
  const label = root.plugin ? `plugin:${root.plugin.name}` : root.source;
  return {
    kind: "command",
    name: `${prefix}${base}`,
    // Subfolders annotate the description in 2.1.332 (contracts §6.3); `/folder:name` is accepted too.
    aliases: folders.length ? [`${prefix}${[...folders, base].join(":")}`] : [],
    source: root.source,
    plugin: root.plugin,
    note: folders.length ? `(${label}:${folders.join("/")})` : undefined,
  };
}

/** The roots as the cache keys a whole discovery: names, sources, notes and placeholders all follow from them. */
const rootsKey = (roots: ExtensionRoot[]) => JSON.stringify(roots);

/** Whether a remembered whole result holds only entries these files (the ones there) could have made, as entryFits. */
function wholeFits(whole: Discovery, jobs: Job[], roots: ExtensionRoot[], stats: ReadonlyArray<Stats | undefined | null>): boolean {
  if (!whole || !Array.isArray(whole.commands) || !Array.isArray(whole.problems)) return false;
  const at = new Map<string, number>();
  jobs.forEach((j, i) => at.set(j.file, i));
  for (const c of whole.commands) {
    const i = c && typeof c === "object" ? at.get(c.file) : undefined;
    if (i === undefined || !stats[i] || !entryFits(c, jobs[i]!.file, roleOf(jobs[i]!, roots[jobs[i]!.root]!))) return false;
  }
  return whole.problems.every((p) => !!p && typeof p === "object" && typeof p.message === "string" && at.has(problemOf(p.file) ?? ""));
}

/**
 * Every skill and custom slash command (contracts §6.2, §6.3). On a name clash the higher level wins (managed >
 * user > project, the folder closest to cwd first among project folders; plugin entries carry their plugin's
 * name), and within one level a skill beats a command. Two of a kind with one name in one level, a broken frontmatter block
 * and an unreadable file are problems, each naming the file; the rest loads. Never throws.
 * With a cache: when every file is where and as it was (the same listing, the same stat of each), the whole result
 * of the run before is used (no per-file work beyond the stat); else each unchanged file's entry comes from it.
 */
export function discoverExtensions(o: DiscoverExtensionsOptions, read: Reader = readHead): Discovery {
  const roots = extensionRoots(o);
  const jobs = plan(roots);
  const files = jobs.map((j) => j.file);
  const key = o.cache ? rootsKey(roots) : "";
  // A first start (nothing cached): each file is read without a stat first; the cache stats them when it saves.
  const first = o.cache?.isEmpty() ? o.cache.firstStart(key, files, (i) => roleKey(roleOf(jobs[i]!, roots[jobs[i]!.root]!))) : undefined;
  const entries: Array<SlashCommand | ExtensionProblem | null> | undefined = first ? [] : undefined;
  const cache = first ? undefined : o.cache;
  const stats = cache ? files.map(statOf) : undefined;
  if (cache && stats) {
    const whole = cache.snapshot(key, files, stats);
    if (whole && wholeFits(whole, jobs, roots, stats)) return whole;
  }
  const problems: ExtensionProblem[] = [];
  const byName = new Map<string, SlashCommand>();
  const levelOf = new Map<string, number>();
  const add = (c: SlashCommand, root: number) => {
    const had = byName.get(c.name);
    if (had) {
      // A higher level (an earlier root) keeps the name quietly, and so does a skill over a command of its name:
      // that is the documented precedence (contracts §6.2). Two of a kind in one level are a clash.
      const quiet = had.kind === "skill" && c.kind === "command";
      if (!quiet && (levelOf.get(c.name) === root || (had.source === c.source && c.source !== "project")))
        problems.push({ file: c.file, message: `/${c.name} is already defined by ${had.file}; this ${c.kind} is not loaded` });
      return;
    }
    byName.set(c.name, c);
    levelOf.set(c.name, root);
  };
  jobs.forEach((job, i) => {
    const r = entryFor(job.file, roleOf(job, roots[job.root]!), read, cache, stats ? stats[i] : null);
    entries?.push(r);
    if (!r) {
      if (job.named) problems.push({ file: job.file, message: "no such file (named in plugin.json)" });
      return;
    }
    if (isProblem(r)) problems.push(r);
    else add(r, job.root);
  });
  const result = { commands: [...byName.values()], problems };
  if (cache && stats) cache.remember(key, files, stats, result);
  first?.(entries!, result);
  return result;
}

/** `a/b/c.md` under dir → its path relative to the project, for messages. */
export const shortPath = (file: string, cwd: string): string => {
  const r = relative(cwd, file);
  return r && !r.startsWith("..") ? r : file;
};
