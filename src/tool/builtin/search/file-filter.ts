import picomatch from "picomatch";

/** ripgrep 13's default file types (`rg --type-list`), for the built-in engine. */
export const FILE_TYPES: Record<string, string[]> = {
  c: ["*.[chH]", "*.[chH].in", "*.cats"],
  cpp: ["*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in", "*.cc", "*.cc.in", "*.hh", "*.hh.in", "*.inl"],
  cs: ["*.cs"],
  csharp: ["*.cs"],
  css: ["*.css", "*.scss"],
  dart: ["*.dart"],
  docker: ["*Dockerfile*"],
  elixir: ["*.eex", "*.ex", "*.exs"],
  go: ["*.go"],
  haskell: ["*.c2hs", "*.cpphs", "*.hs", "*.hsc", "*.lhs"],
  html: ["*.ejs", "*.htm", "*.html"],
  java: ["*.java", "*.jsp", "*.jspx", "*.properties"],
  js: ["*.js", "*.jsx", "*.vue"],
  json: ["*.json", "composer.lock"],
  jsonl: ["*.jsonl"],
  kotlin: ["*.kt", "*.kts"],
  lua: ["*.lua"],
  make: ["*.mak", "*.mk", "[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Mm]akefile.am", "[Mm]akefile.in"],
  markdown: ["*.markdown", "*.md", "*.mdown", "*.mkdn"],
  md: ["*.markdown", "*.md", "*.mdown", "*.mkdn"],
  perl: ["*.PL", "*.perl", "*.pl", "*.plh", "*.plx", "*.pm", "*.t"],
  php: ["*.php", "*.php3", "*.php4", "*.php5", "*.phtml"],
  py: ["*.py"],
  r: ["*.R", "*.Rmd", "*.Rnw", "*.r"],
  ruby: ["*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"],
  rust: ["*.rs"],
  scala: ["*.sbt", "*.scala"],
  sh: ["*.bash", "*.sh", "*.zsh", "*.ksh", "*.csh", ".bashrc", ".zshrc", ".profile", ".bash_profile"],
  sql: ["*.psql", "*.sql"],
  swift: ["*.swift"],
  toml: ["*.toml", "Cargo.lock"],
  ts: ["*.ts", "*.tsx"],
  txt: ["*.txt"],
  xml: ["*.dtd", "*.rng", "*.sch", "*.xhtml", "*.xjb", "*.xml", "*.xml.dist", "*.xsd", "*.xsl", "*.xslt"],
  yaml: ["*.yaml", "*.yml"],
  zig: ["*.zig"],
};

/** The globs of a file type. Throws a model-facing Error for a type neither engine knows. */
export function typeGlobs(type: string): string[] {
  const globs = FILE_TYPES[type];
  if (globs) return globs;
  throw new Error(
    `Unknown file type "${type}". Use one of: ${Object.keys(FILE_TYPES).join(", ")}; or use the glob parameter instead (e.g. glob: "*.ext").`,
  );
}

/** Splits the model's `glob` field the way users write it: "*.ts,*.tsx" or "*.ts *.tsx", braces kept whole. */
export function splitGlobs(glob: string | undefined): string[] {
  if (!glob?.trim()) return [];
  const out: string[] = [];
  for (const part of glob.trim().split(/\s+/)) {
    if (part.includes("{")) out.push(part);
    else out.push(...part.split(",").filter(Boolean));
  }
  return out;
}

/** True for files a positive glob names: ripgrep searches those even when an ignore file hides them. */
export function globOverride(globs: string[]): ((rel: string) => boolean) | undefined {
  const include = globs.filter((g) => !g.startsWith("!"));
  if (!include.length) return undefined;
  const ms = include.map(compileOne);
  return (rel) => ms.some((m) => m(rel));
}

function compileOne(g: string): (rel: string) => boolean {
  const m = picomatch(g, { dot: true });
  // ripgrep matches a slash-free glob against the file name at any depth.
  return g.includes("/") ? (rel: string) => m(rel) : (rel: string) => m(rel.slice(rel.lastIndexOf("/") + 1));
}

/** Throws a model-facing Error for an unknown type. Returns a predicate over root-relative posix paths. */
export function fileFilter(globs: string[], type: string | undefined): ((rel: string) => boolean) | null {
  const tests: Array<(rel: string) => boolean> = [];
  if (type) {
    const m = picomatch(typeGlobs(type), { dot: true, basename: true });
    tests.push((rel) => m(rel));
  }
  const include = globs.filter((g) => !g.startsWith("!"));
  const exclude = globs.filter((g) => g.startsWith("!")).map((g) => g.slice(1));
  if (include.length) {
    const ms = include.map(compileOne);
    tests.push((rel) => ms.some((m) => m(rel)));
  }
  if (exclude.length) {
    const ms = exclude.map(compileOne);
    // An excluded directory excludes everything below it, as ripgrep prunes it.
    tests.push((rel) => {
      let i = -1;
      do {
        i = rel.indexOf("/", i + 1);
        const prefix = i < 0 ? rel : rel.slice(0, i);
        if (ms.some((m) => m(prefix))) return false;
      } while (i >= 0);
      return true;
    });
  }
  if (!tests.length) return null;
  return (rel) => tests.every((t) => t(rel));
}
