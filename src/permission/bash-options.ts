// Options that make a command run a program, write a file or read one, parsed as the program itself parses them
// (issue 16 red-team classes): getopt_long prefix matching (`sort --outp=x`, `--compress-p`), short clusters with an
// attached value (`git grep -Orm`, `sort -uoFILE`, `grep -if.env`), `--opt=value` and `--opt value`.
// A long option given by a prefix is taken as every option it could abbreviate (the most dangerous wins), so an
// ambiguous or unknown spelling can only make a check stricter. Pure.
import { basename } from "node:path";
import type { ShellWord } from "./bash-parse.ts";
import { gitGlobals } from "./bash-words.ts";

/**
 * What an option does with its value. `value`: takes one, harmless; `opt`: takes one only when attached (`--color=x`,
 * git's `-O<cmd>`); `read`/`write`: the value is a file read or written; `exec`: the value (or, when absent, a pager or
 * similar) is a program the command runs; `refuse`: the option changes state, so the command is not read-only;
 * `name+read`: two words, a name and then a file read (`jq --rawfile NAME FILE`); `name+value`: two harmless words.
 */
export type Kind = "value" | "opt" | "read" | "write" | "exec" | "refuse" | "name+read" | "name+value" | "opt-exec" | "flag" | "data" | "ssh-option";
export type Spec = {
  short?: Record<string, Kind>;
  long?: Record<string, Kind>;
  /** Long options start with one dash (`find -fprint`, `tree`'s are GNU style): no short clusters. */
  singleDash?: boolean;
  /** `+cmd` operands are commands the program runs (less). */
  plusCommand?: boolean;
};

const GREP: Spec = {
  short: { e: "value", f: "read", A: "value", B: "value", C: "value", m: "value", d: "value", D: "value" },
  long: { regexp: "value", file: "read", "exclude-from": "read", "after-context": "value", "before-context": "value", context: "value", "max-count": "value", directories: "value", devices: "value", include: "value", exclude: "value", "exclude-dir": "value", label: "value", color: "opt", colour: "opt", "binary-files": "value", "group-separator": "value", recursive: "flag", "dereference-recursive": "flag" },
};

const DIFF_LIKE: Record<string, Kind> = {
  output: "write", "ext-diff": "exec", "output-directory": "write", "orderfile": "read",
  "output-indicator-new": "value", "output-indicator-old": "value", "output-indicator-context": "value",
};

/** git subcommands' options that run, write or read (the parse-options library takes unique prefixes too). */
const GIT_SUB: Record<string, Spec> = {
  grep: { short: { O: "opt-exec", f: "read", e: "value", A: "value", B: "value", C: "value", m: "value" }, long: { "open-files-in-pager": "opt-exec", file: "read", "max-depth": "value", threads: "value", "after-context": "value", "before-context": "value", context: "value", "max-count": "value", textconv: "refuse" } },
  blame: { short: { S: "read", L: "value" }, long: { contents: "read", "ignore-revs-file": "read", "ignore-rev": "value", textconv: "refuse" } },
  annotate: { short: { S: "read", L: "value" }, long: { contents: "read", "ignore-revs-file": "read", "ignore-rev": "value", textconv: "refuse" } },
  log: { short: { O: "read", n: "value", S: "value", G: "value", L: "value" }, long: { ...DIFF_LIKE, textconv: "refuse" } },
  show: { short: { O: "read", n: "value", S: "value", G: "value", L: "value" }, long: { ...DIFF_LIKE, textconv: "refuse" } },
  whatchanged: { short: { O: "read", n: "value", S: "value", G: "value" }, long: { ...DIFF_LIKE, textconv: "refuse" } },
  diff: { short: { O: "read", S: "value", G: "value", I: "value" }, long: { ...DIFF_LIKE, textconv: "refuse" } },
  stash: { short: { O: "read" }, long: { ...DIFF_LIKE, textconv: "refuse" } },
  reflog: { short: { O: "read", n: "value" }, long: { ...DIFF_LIKE } },
  shortlog: { long: { output: "write" } },
  "cat-file": { long: { textconv: "refuse", filters: "refuse" } },
  config: { short: { f: "read", e: "refuse" }, long: { file: "read", blob: "value", edit: "refuse", add: "refuse", "replace-all": "refuse", unset: "refuse", "unset-all": "refuse", "rename-section": "refuse", "remove-section": "refuse", "default": "value", type: "value" } },
  "ls-files": { short: { X: "read", x: "value" }, long: { "exclude-from": "read", exclude: "value", "exclude-per-directory": "value", "with-tree": "value" } },
  branch: { short: { d: "refuse", D: "refuse", m: "refuse", M: "refuse", c: "refuse", C: "refuse", f: "refuse", u: "refuse", t: "refuse" }, long: { delete: "refuse", move: "refuse", copy: "refuse", force: "refuse", "set-upstream-to": "refuse", "set-upstream": "refuse", "unset-upstream": "refuse", "edit-description": "refuse", track: "refuse", "create-reflog": "refuse", format: "value", sort: "value", contains: "opt", "no-contains": "opt", merged: "opt", "no-merged": "opt", "points-at": "value" } },
  tag: { short: { d: "refuse", a: "refuse", s: "refuse", u: "refuse", f: "refuse", m: "refuse", F: "refuse", e: "refuse", n: "opt" }, long: { delete: "refuse", annotate: "refuse", sign: "refuse", "local-user": "refuse", force: "refuse", message: "refuse", file: "refuse", edit: "refuse", "create-reflog": "refuse", format: "value", sort: "value", contains: "opt", "no-contains": "opt", merged: "opt", "no-merged": "opt", "points-at": "value" } },
  // Programs git runs for transports, rebases and other subcommands: never read-only, but a Bash deny rule must see them.
  rebase: { short: { x: "exec" }, long: { exec: "exec" } },
  bisect: {},
  difftool: { short: { x: "exec", t: "value" }, long: { extcmd: "exec", tool: "value" } },
  mergetool: { short: { t: "value" }, long: { tool: "value" } },
  "ls-remote": { long: { "upload-pack": "exec" } },
  fetch: { long: { "upload-pack": "exec" } },
  pull: { long: { "upload-pack": "exec" } },
  clone: { short: { u: "exec" }, long: { "upload-pack": "exec", template: "read" } },
  push: { long: { "receive-pack": "exec", exec: "exec" } },
  archive: { short: { o: "write" }, long: { exec: "exec", output: "write" } },
  "format-patch": { short: { o: "write" }, long: { "output-directory": "write", output: "write" } },
  "filter-branch": { long: { "env-filter": "exec", "tree-filter": "exec", "index-filter": "exec", "parent-filter": "exec", "msg-filter": "exec", "commit-filter": "exec", "tag-name-filter": "exec", "subdirectory-filter": "value" } },
};

/** Options of common programs that run, write or read a file named in their value. */
export const SPECS: Record<string, Spec> = {
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  rg: {
    short: { e: "value", f: "read", g: "value", t: "value", T: "value", A: "value", B: "value", C: "value", m: "value", j: "value", M: "value", E: "value", r: "value", d: "value" },
    long: { pre: "exec", "pre-glob": "value", "hostname-bin": "exec", file: "read", "ignore-file": "read", regexp: "value", glob: "value", iglob: "value", type: "value", "type-not": "value", "type-add": "value", "type-clear": "value", replace: "value", "max-depth": "value", "max-count": "value", "max-columns": "value", "max-filesize": "value", threads: "value", encoding: "value", sort: "value", sortr: "value", colors: "value", color: "value", "path-separator": "value", "context-separator": "value", "field-match-separator": "value", "field-context-separator": "value", "hyperlink-format": "value", "dfa-size-limit": "value", "regex-size-limit": "value", engine: "value", generate: "value", "after-context": "value", "before-context": "value", context: "value" },
  },
  sort: {
    short: { o: "write", T: "write", k: "value", t: "value", S: "value" },
    long: { output: "write", "compress-program": "exec", "temporary-directory": "write", "files0-from": "read", "random-source": "read", key: "value", "field-separator": "value", "buffer-size": "value", "batch-size": "value", parallel: "value", sort: "value" },
  },
  wc: { long: { "files0-from": "read" } },
  du: { short: { X: "read", B: "value", d: "value", t: "value" }, long: { "files0-from": "read", "exclude-from": "read", exclude: "value", "block-size": "value", "max-depth": "value", threshold: "value", time: "opt", "time-style": "value" } },
  diff: {
    short: { X: "read", x: "value", I: "value", F: "value", L: "value", C: "value", U: "value", D: "value", W: "value" },
    long: { "from-file": "read", "to-file": "read", "exclude-from": "read", exclude: "value", "ignore-matching-lines": "value", "show-function-line": "value", label: "value", context: "opt", unified: "opt", ifdef: "value", width: "value", "horizon-lines": "value", "line-format": "value", "old-line-format": "value", "new-line-format": "value", "unchanged-line-format": "value", "old-group-format": "value", "new-group-format": "value", "changed-group-format": "value", "unchanged-group-format": "value", palette: "value", color: "opt", tabsize: "value" },
  },
  file: { short: { f: "read", m: "read", C: "refuse", F: "value", e: "value", P: "value" }, long: { "files-from": "read", "magic-file": "read", compile: "refuse", separator: "value", exclude: "value", "exclude-quiet": "value", parameter: "value" } },
  date: { short: { f: "read", r: "read", s: "refuse", d: "value" }, long: { file: "read", reference: "read", set: "refuse", date: "value", "rfc-3339": "value", "iso-8601": "opt" } },
  hostname: { short: { F: "refuse", b: "refuse" }, long: { file: "refuse", boot: "refuse" } },
  tree: {
    // -R runs tree again in every folder with `-o 00Tree.html`: it writes.
    short: { o: "write", R: "refuse", L: "value", P: "value", I: "value", H: "value", T: "value" },
    long: { infofile: "read", gitfile: "read", charset: "value", filelimit: "value", timefmt: "value", sort: "value", hintro: "value", houtro: "value", prune: "flag" },
  },
  less: {
    short: { o: "write", O: "write", k: "read", T: "read", t: "value", p: "value", b: "value", h: "value", j: "value", x: "value", y: "value", z: "value", P: "value", D: "value", "#": "value" },
    long: { "log-file": "write", "LOG-FILE": "write", "lesskey-file": "read", "lesskey-src": "read", "lesskey-content": "refuse", "tag-file": "read", tag: "value", pattern: "value", "buffers": "value", "max-back-scroll": "value", "jump-target": "value", tabs: "value", "max-forw-scroll": "value", window: "value", prompt: "value", shift: "value", "header": "value", "color": "value", "line-num-width": "value", "status-col-width": "value", "wordwrap": "flag" },
    plusCommand: true,
  },
  jq: {
    short: { f: "read", L: "read" },
    long: { "from-file": "read", rawfile: "name+read", slurpfile: "name+read", argfile: "name+read", arg: "name+value", argjson: "name+value", indent: "value" },
  },
  xargs: {
    short: { a: "read", I: "value", i: "opt", n: "value", L: "value", l: "opt", P: "value", d: "value", E: "value", e: "opt", s: "value" },
    long: { "arg-file": "read", "max-args": "value", "max-lines": "value", "max-procs": "value", delimiter: "value", eof: "opt", replace: "opt", "max-chars": "value", "process-slot-var": "value" },
  },
  find: { singleDash: true, long: { fprint: "write", fprint0: "write", fprintf: "write", fls: "write", "files0-from": "read" } },
  tar: {
    short: { f: "write", C: "value", T: "read", X: "read", I: "exec", F: "exec", b: "value", K: "value", N: "value", g: "write", V: "value", H: "value" },
    long: { file: "write", directory: "value", "files-from": "read", "exclude-from": "read", "use-compress-program": "exec", "to-command": "exec", "info-script": "exec", "new-volume-script": "exec", "rsh-command": "exec", "rmt-command": "exec", "checkpoint-action": "exec", "listed-incremental": "write", exclude: "value", format: "value", owner: "value", group: "value", mode: "value", transform: "value", xform: "value", "blocking-factor": "value", "starting-file": "value", "newer": "value", "after-date": "value", label: "value" },
  },
  zip: { short: { TT: "exec", b: "value", n: "value", x: "value", i: "value", t: "value", O: "write", P: "value" }, long: { "unzip-command": "exec", "temp-path": "write", output: "write", "out": "write" } },
  rsync: { short: { e: "exec" }, long: { rsh: "exec", "rsync-path": "exec", "exclude-from": "read", "include-from": "read", "files-from": "read", "password-file": "read", "log-file": "write", "write-batch": "write", "only-write-batch": "write", "read-batch": "read", exclude: "value", include: "value", filter: "value" } },
  man: { short: { P: "exec", H: "exec", l: "flag" }, long: { pager: "exec", html: "opt-exec", "config-file": "read" } },
  curl: { short: { o: "write", K: "read", T: "read", c: "write", b: "value", D: "write", E: "value", u: "value", H: "value", d: "data", F: "data", X: "value", A: "value", e: "value", x: "value", m: "value" }, long: { output: "write", config: "read", "upload-file": "read", "cookie-jar": "write", "dump-header": "write", "trace": "write", "trace-ascii": "write", "stderr": "write", "output-dir": "write", "libcurl": "write", "etag-save": "write", "hsts": "write", "alt-svc": "write", data: "data", "data-binary": "data", "data-ascii": "data", "data-urlencode": "data", "data-raw": "value", form: "data", "form-string": "value", json: "data", "url-query": "data", variable: "data", "proxy-header": "data", header: "data", cookie: "value" } },
  wget: { short: { O: "write", o: "write", a: "write", P: "write", i: "read", e: "value" }, long: { "output-document": "write", "output-file": "write", "append-output": "write", "directory-prefix": "write", "input-file": "read", execute: "value", "use-askpass": "exec" } },
  ssh: { short: { o: "ssh-option", F: "read", i: "read", E: "write" } },
  scp: { short: { o: "ssh-option", F: "read", i: "read", S: "exec" } },
  sftp: { short: { o: "ssh-option", F: "read", i: "read", S: "exec", b: "read", D: "exec" } },
  sed: { short: { f: "read", e: "value", l: "value", i: "opt" }, long: { file: "read", expression: "value", "line-length": "value", "in-place": "opt" } },
  awk: { short: { f: "read", v: "value", F: "value", e: "value", E: "read" }, long: { file: "read", assign: "value", "field-separator": "value", source: "value", exec: "read" } },
  gawk: { short: { f: "read", v: "value", F: "value", e: "value", E: "read", o: "write", p: "write", d: "write", i: "read", l: "read" }, long: { file: "read", assign: "value", "field-separator": "value", source: "value", exec: "read", "pretty-print": "write", profile: "write", "dump-variables": "write", include: "read", load: "read" } },
};

export type OptionEffects = {
  reads: ShellWord[];
  writes: ShellWord[];
  /** The option that runs a program (`--compress-program=sh`, `-Orm`, `--pre`), as written. */
  exec?: string;
  /** An option that changes state (`date -s`, `git branch -D`), as written: the command is not read-only. */
  refuse?: string;
};

const w = (value: string, like?: ShellWord): ShellWord => ({ value, raw: like?.raw ?? value, static: like?.static ?? true, glob: like?.glob ?? false });
const RANK: Record<Kind, number> = { flag: 0, value: 1, opt: 1, "name+value": 2, data: 3, "ssh-option": 6, read: 3, "name+read": 3, write: 4, refuse: 5, exec: 6, "opt-exec": 6 };

/** The options a long name may stand for: itself when spelled whole, else every one it abbreviates; the most dangerous. */
export function longKind(spec: Spec, name: string): Kind | undefined {
  const longs = spec.long ?? {};
  if (Object.hasOwn(longs, name)) return longs[name];
  let best: Kind | undefined;
  for (const [k, kind] of Object.entries(longs)) if (k.startsWith(name) && (best === undefined || RANK[kind] > RANK[best])) best = kind;
  return best;
}

/** What the options of one command (program name first) make it run, write or read. Pure. */
export function optionEffects(argv: ShellWord[]): OptionEffects {
  const fx: OptionEffects = { reads: [], writes: [] };
  const name = argv[0]?.static ? basename(argv[0].value) : "";
  let spec = SPECS[name];
  let words = argv.slice(1);
  if (name === "git") {
    const g = gitGlobals(argv);
    const sub = g.argv[1];
    spec = sub?.static ? GIT_SUB[sub.value] : undefined;
    words = g.argv.slice(2);
  }
  if (!spec) return fx;
  const apply = (kind: Kind, opt: string, value: ShellWord | undefined, second?: ShellWord) => {
    if (kind === "exec" || kind === "opt-exec") fx.exec ??= opt;
    else if (kind === "refuse") fx.refuse ??= opt;
    else if (kind === "read" && value) fx.reads.push(value);
    else if (kind === "write" && value) fx.writes.push(value);
    else if (kind === "name+read" && second) fx.reads.push(second);
    // curl reads `@file` / `<file` in data and form values (`-d @.env`, `-F x=@.env`, `-H @file`).
    else if (kind === "data" && value?.static) {
      const m = /(?:^|=)[@<]([^;]+)/.exec(value.value);
      if (m) fx.reads.push(w(m[1]!, value));
    } else if (kind === "data" && value) fx.refuse ??= `${opt} ${value.raw}`;
    // ssh -o ProxyCommand=... / LocalCommand / KnownHostsCommand run a program.
    else if (kind === "ssh-option" && (!value?.static || /^\s*(proxycommand|localcommand|knownhostscommand|permitlocalcommand|proxyusefdpass|match)\b/i.test(value.value))) fx.exec ??= `${opt} ${value?.raw ?? ""}`;
  };
  const takesNext = (k: Kind) => k === "value" || k === "read" || k === "write" || k === "exec" || k === "name+read" || k === "name+value" || k === "data" || k === "ssh-option";
  for (let i = 0; i < words.length; i++) {
    const x = words[i]!;
    if (!x.static) {
      // A word built at run time may be any option (`-O$x`, `$opt`): the worst one this program has.
      const kinds = [...Object.values(spec.short ?? {}), ...Object.values(spec.long ?? {})];
      if (kinds.some((k) => k === "exec" || k === "opt-exec")) fx.exec ??= `built at run time (${x.raw})`;
      else if (kinds.includes("write")) fx.writes.push(x);
      else if (kinds.some((k) => k === "read" || k === "name+read")) fx.reads.push(x);
      continue;
    }
    const v = x.value;
    if (v === "--") break;
    if (spec.plusCommand && v.startsWith("+") && v.length > 1) {
      fx.refuse ??= v;
      continue;
    }
    const isLong = v.startsWith("--") || (spec.singleDash && v.startsWith("-") && v.length > 1);
    if (isLong && v.length > 2) {
      const body = v.slice(v.startsWith("--") ? 2 : 1);
      const eq = body.indexOf("=");
      const optName = eq >= 0 ? body.slice(0, eq) : body;
      const kind = longKind(spec, optName);
      if (!kind || kind === "flag") continue;
      if (eq >= 0) apply(kind, v, w(body.slice(eq + 1), x), kind === "name+read" ? words[i + 1] : undefined);
      else if (kind === "opt" || kind === "opt-exec") apply(kind, v, undefined);
      else if (takesNext(kind)) {
        const first = words[i + 1];
        const second = kind.startsWith("name+") ? words[i + 2] : undefined;
        apply(kind, v, first, second);
        i += kind.startsWith("name+") ? 2 : 1;
      } else apply(kind, v, undefined);
      continue;
    }
    if (v.startsWith("-") && v.length > 1 && !spec.singleDash) {
      // A short cluster: letters until one takes a value, which is the rest of the word or the next word.
      const shorts = spec.short ?? {};
      for (let k = 1; k < v.length; k++) {
        const two = v.slice(k, k + 2);
        const c = Object.hasOwn(shorts, two) && k === 1 ? two : v[k]!;
        const kind = shorts[c];
        if (!kind || kind === "flag") continue;
        const rest = v.slice(k + c.length);
        if (kind === "opt" || kind === "opt-exec") {
          apply(kind, `-${c}`, rest ? w(rest, x) : undefined);
          break;
        }
        if (rest) apply(kind, `-${c}`, w(rest, x), kind === "name+read" ? words[i + 1] : undefined);
        else {
          apply(kind, `-${c}`, words[i + 1], kind === "name+read" ? words[i + 2] : undefined);
          i += kind === "name+read" ? 2 : 1;
        }
        break;
      }
    }
  }
  return fx;
}
