
/** `src/*.{ts,tsx}` → two patterns; nested braces expand too. */
export function expandBraces(pattern: string): string[] {
  const open = pattern.indexOf("{");
  if (open < 0) return [pattern];
  let depth = 0;
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) {
      const inner = pattern.slice(open + 1, i);
      const parts = splitTopLevel(inner, ",");
      if (parts.length < 2) return [pattern];
      const head = pattern.slice(0, open);
      const tail = pattern.slice(i + 1);
      return parts.flatMap((p) => expandBraces(head + p + tail));
    }
  }
  return [pattern];
}

function splitTopLevel(s: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const c of s) {
    if (c === "{") depth++;
    else if (c === "}") depth--;
    if (c === sep && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/**
 * The `paths:` globs of a rule (a YAML list or a comma-separated string, braces expanded,
 * a trailing `/**` dropped). null means unconditional: no `paths`, no patterns left, or only `**`.
 */
export function parsePathsField(data: Record<string, unknown> | null): string[] | null {
  const raw = data?.paths;
  let items: string[] = [];
  if (typeof raw === "string") items = splitTopLevel(raw, ",");
  else if (Array.isArray(raw)) items = raw.filter((x): x is string => typeof x === "string");
  else return null;
  const patterns = items
    .flatMap((p) => expandBraces(p.trim()))
    .map((p) => (p.endsWith("/**") ? p.slice(0, -3) : p).trim())
    .filter((p) => p.length > 0);
  if (patterns.length === 0 || patterns.every((p) => p === "**")) return null;
  return patterns;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Removes block-level `<!-- … -->` comments outside code fences, keeping text after `-->` on its line.
 * Inline comments inside a paragraph and unclosed comments stay (internals §1.1).
 */
export function stripBlockHtmlComments(text: string): string {
  if (!text.includes("<!--")) return text;
  const lines = text.split("\n");
  const out: string[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const f = FENCE.exec(line);
    if (fence) {
      if (f && f[1]!.startsWith(fence[0]!) && f[1]!.length >= fence.length) fence = null;
      out.push(line);
      continue;
    }
    if (f) {
      fence = f[1]!;
      out.push(line);
      continue;
    }
    if (/^ {0,3}<!--/.test(line)) {
      const start = line.indexOf("<!--");
      let j = i;
      let endCol = lines[j]!.indexOf("-->", start + 4);
      while (endCol < 0 && j + 1 < lines.length) {
        j++;
        endCol = lines[j]!.indexOf("-->");
      }
      if (endCol < 0) {
        out.push(line);
        continue;
      }
      const rest = lines[j]!.slice(endCol + 3);
      if (rest.trim()) out.push(rest);
      i = j;
      continue;
    }
    out.push(line);
  }
  return out.join("\n");
}

const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s/;

/** Text the `@import` scanner may look at: code fences, indented code, code spans and HTML comments removed. */
function importableLines(text: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  let prevBlank = true;
  let inList = false;
  for (const line of text.split("\n")) {
    const f = FENCE.exec(line);
    if (fence) {
      if (f && f[1]!.startsWith(fence[0]!) && f[1]!.length >= fence.length) fence = null;
      continue;
    }
    if (f) {
      fence = f[1]!;
      continue;
    }
    const blank = line.trim() === "";
    if (!blank && /^(?: {4}|\t)/.test(line) && prevBlank && !inList) {
      prevBlank = false;
      continue;
    }
    if (!blank) {
      if (LIST_ITEM.test(line)) inList = true;
      else if (!/^\s/.test(line)) inList = false;
    }
    prevBlank = blank;
    out.push(line.replace(/<!--[\s\S]*?-->/g, " ").replace(/(`+)[\s\S]*?\1/g, " "));
  }
  return out;
}

const IMPORT = /(?:^|\s)@((?:[^\s\\]|\\ )+)/g;

/** `@path` references in markdown text, in order, fragments dropped, `\ ` unescaped (internals §1.1). */
export function findImports(text: string): string[] {
  if (!text.includes("@")) return [];
  const out: string[] = [];
  for (const line of importableLines(text)) {
    for (const m of line.matchAll(IMPORT)) {
      let p = (m[1] ?? "").replace(/\\ /g, " ");
      const hash = p.indexOf("#");
      if (hash >= 0) p = p.slice(0, hash);
      if (!p) continue;
      const ok = p.startsWith("./") || p.startsWith("~/") || (p.startsWith("/") && p.length > 1) || /^[A-Za-z0-9._-]/.test(p);
      if (ok && !p.startsWith("@")) out.push(p);
    }
  }
  return out;
}

// Text formats an import may pull in; anything else with an extension is treated as binary.
const TEXT_EXTENSIONS = new Set(
  (
    "md mdx markdown txt text rst adoc org json jsonc json5 yaml yml toml xml csv tsv html htm css scss sass less " +
    "js mjs cjs jsx ts mts cts tsx py pyi rb go rs java kt kts scala groovy c h cc cpp cxx hpp hh cs fs swift m mm " +
    "sh bash zsh fish ps1 bat cmd env ini cfg conf config properties sql graphql gql proto vue svelte astro " +
    "hbs handlebars mustache ejs erb jinja j2 liquid njk twig php pl pm lua r dart ex exs erl hrl clj cljs edn " +
    "elm hs ml mli nim zig v sol tf tfvars hcl nix dockerfile makefile mk cmake gradle sbt lock log diff patch tex bib"
  ).split(" "),
);

/** True for files an import may load: a known text extension or no extension at all. */
export function isTextPath(path: string): boolean {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return true;
  return TEXT_EXTENSIONS.has(base.slice(dot + 1).toLowerCase());
}
