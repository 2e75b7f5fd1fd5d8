import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createGrepTool, type GrepInput } from "../../src/tool/builtin/grep.ts";
import { requiredLiteral, translateRegex } from "../../src/tool/builtin/search/regex.ts";
import { makeCtx, removeTempDirs, tempDir, writeTree } from "./search-ctx.ts";

const hasRg = !!Bun.which("rg");
const engines = (hasRg ? ["rg", "builtin"] : ["builtin"]) as Array<"rg" | "builtin">;

// One fixture shared by every test; files written oldest first, so newest-first order is the reverse.
const root = tempDir();
writeTree(root, {
  ".git/HEAD": "ref: refs/heads/main foo\n",
  ".git/info/exclude": "excluded.txt\n",
  ".gitignore": "*.log\nbuild/\n",
  "excluded.txt": "foo excluded\n",
  "a.txt": "hello world\nfoo bar\nbaz\nqux foo\n",
  "src/b.ts": "const foo = 1;\n// nothing\n\nfoo();\n",
  "src/.gitignore": "secret.ts\n!keep.log\n",
  "src/secret.ts": "foo secret\n",
  "src/keep.log": "foo keep\n",
  "src/deep/c.js": "function Foo() {}\nlet x = FOO;\n",
  "x.log": "foo log\n",
  "build/out.js": "foo build\n",
  ".hidden/h.md": "foo hidden\n",
  "bin.dat": Buffer.from([102, 111, 111, 0, 1, 2, 10]),
  "multi.txt": "start\nmiddle\nend\n",
  "crlf.txt": "foo one\r\nfoo two\r\n",
  "nonl.txt": "no newline foo",
});
const p = (rel: string) => path.join(root, rel);
afterAll(removeTempDirs);

async function grep(engine: "rg" | "builtin", input: GrepInput, cwd = root, extra: Parameters<typeof makeCtx>[1] = {}) {
  return createGrepTool({ engine }).run(input, makeCtx(cwd, extra));
}

describe.each(engines)("Grep with the %s engine (contracts §7.2)", (engine) => {
  test("files_with_matches by default: gitignore (root, nested, negation, info/exclude), .git skipped, hidden searched, binary skipped, newest first", async () => {
    const r = await grep(engine, { pattern: "foo" });
    expect(r.isError).toBeUndefined();
    expect(r.content).toBe(
      ["nonl.txt", "crlf.txt", ".hidden/h.md", "src/keep.log", "src/b.ts", "a.txt"].map(p).join("\n"),
    );
    expect((r.details as { engine: string }).engine).toBe(engine);
  });

  test("content mode: path:line:text, -n default on", async () => {
    const r = await grep(engine, { pattern: "foo", output_mode: "content", path: "src" });
    expect(r.content).toBe(`${p("src/keep.log")}:1:foo keep\n${p("src/b.ts")}:1:const foo = 1;\n${p("src/b.ts")}:4:foo();`);
  });

  test("context lines use - and groups are separated by --; -n false drops numbers", async () => {
    const r = await grep(engine, { pattern: "foo", output_mode: "content", path: "a.txt", "-C": 1 });
    expect(r.content).toBe([`${p("a.txt")}-1-hello world`, `${p("a.txt")}:2:foo bar`, `${p("a.txt")}-3-baz`, `${p("a.txt")}:4:qux foo`].join("\n"));
    const b = await grep(engine, { pattern: "^foo", output_mode: "content", path: "src/b.ts", "-A": 0, "-B": 0, context: 0 });
    expect(b.content).toBe(`${p("src/b.ts")}:4:foo();`);
    const sep = await grep(engine, { pattern: "const|foo\\(", output_mode: "content", path: "src/b.ts", "-A": 1, "-n": false });
    expect(sep.content).toBe([`${p("src/b.ts")}:const foo = 1;`, `${p("src/b.ts")}-// nothing`, "--", `${p("src/b.ts")}:foo();`].join("\n"));
  });

  test("-o shows each match alone; repeated line numbers do not start a new context group", async () => {
    const r = await grep(engine, { pattern: "fo+|ba.", output_mode: "content", path: "a.txt", "-o": true, "-A": 1 });
    expect(r.content).toBe([`${p("a.txt")}:2:foo`, `${p("a.txt")}:2:bar`, `${p("a.txt")}:3:baz`, `${p("a.txt")}:4:foo`].join("\n"));
  });

  test("count mode and -i", async () => {
    const r = await grep(engine, { pattern: "foo", output_mode: "count", "-i": true, path: "src" });
    expect(r.content).toBe(`${p("src/deep/c.js")}:2\n${p("src/keep.log")}:1\n${p("src/b.ts")}:2\n\nFound 5 matching lines in 3 files.`);
  });

  test("glob and type filters", async () => {
    // As in ripgrep, a positive glob also selects files an ignore file hides (src/secret.ts), not files in ignored dirs.
    const g = await grep(engine, { pattern: "foo", glob: "*.{ts,js}", "-i": true });
    expect(g.content).toBe([p("src/deep/c.js"), p("src/secret.ts"), p("src/b.ts")].join("\n"));
    const neg = await grep(engine, { pattern: "foo", glob: "!src", "-i": true });
    expect(neg.content).toBe(["nonl.txt", "crlf.txt", ".hidden/h.md", "a.txt"].map(p).join("\n"));
    const t = await grep(engine, { pattern: "foo", type: "ts" });
    expect(t.content).toBe(p("src/b.ts"));
    const bad = await grep(engine, { pattern: "foo", type: "nosuchtype" });
    expect(bad.isError).toBe(true);
    expect(String(bad.content)).toContain('Unknown file type "nosuchtype"');
  });

  test("a match never crosses lines unless multiline", async () => {
    const line = await grep(engine, { pattern: "start\\s+middle", output_mode: "content" });
    expect(line.content).toBe("No matches found");
    const ws = await grep(engine, { pattern: "\\s+foo", output_mode: "content", path: "a.txt" });
    expect(ws.content).toBe(`${p("a.txt")}:4:qux foo`);
    const multi = await grep(engine, { pattern: "start.middle", multiline: true, output_mode: "content" });
    expect(multi.content).toBe(`${p("multi.txt")}:1:start\n${p("multi.txt")}:2:middle`);
  });

  test("line anchors, CRLF and a last line without newline", async () => {
    const r = await grep(engine, { pattern: "^foo t", output_mode: "content" });
    expect(r.content).toBe(`${p("crlf.txt")}:2:foo two\r`);
    const n = await grep(engine, { pattern: "foo$", output_mode: "content", path: "nonl.txt" });
    expect(n.content).toBe(`${p("nonl.txt")}:1:no newline foo`);
  });

  test("head_limit and offset page the entries and say how to continue", async () => {
    const r = await grep(engine, { pattern: "foo", head_limit: 2 });
    expect(r.content).toBe(
      `${p("nonl.txt")}\n${p("crlf.txt")}\n\n[Showing results 1-2 of 6. Call Grep again with offset: 2 to see the next ones, or narrow the search.]`,
    );
    const next = await grep(engine, { pattern: "foo", head_limit: 2, offset: 4 });
    expect(next.content).toBe(`${p("src/b.ts")}\n${p("a.txt")}`);
    const past = await grep(engine, { pattern: "foo", offset: 50 });
    expect(String(past.content)).toContain("No results at offset 50: there are only 6");
    const all = await grep(engine, { pattern: "foo", head_limit: 0 });
    expect(String(all.content).split("\n")).toHaveLength(6);
  });

  test("a file as path, an empty dir, no match", async () => {
    const f = await grep(engine, { pattern: "wor", path: p("a.txt") });
    expect(f.content).toBe(p("a.txt"));
    for (const output_mode of ["files_with_matches", "content", "count"] as const) {
      const bin = await grep(engine, { pattern: "foo", path: "bin.dat", output_mode });
      expect(bin.content).toBe(`${p("bin.dat")} is a binary file; Grep does not search binary files.`);
    }
    const empty = tempDir();
    expect((await grep(engine, { pattern: "x" }, empty)).content).toBe("No files found");
    expect((await grep(engine, { pattern: "zzzz-nothing", output_mode: "content" })).content).toBe("No matches found");
  });

  test("a missing path is an error the model can act on", async () => {
    const r = await grep(engine, { pattern: "x", path: "nope/dir" });
    expect(r.isError).toBe(true);
    expect(r.content).toBe(
      `Error: Path does not exist: ${p("nope/dir")}. The current working directory is ${root}. Call Grep again with an existing file or directory as path, or leave path out to search the working directory.`,
    );
  });

  test("an invalid regex is an error the model can act on", async () => {
    for (const pattern of ["foo(", "a(?=b)"]) {
      const r = await grep(engine, { pattern });
      expect(r.isError).toBe(true);
      expect(String(r.content)).toStartWith(`Error: Invalid regular expression ${JSON.stringify(pattern)}:`);
      expect(String(r.content)).toContain("escape special characters");
    }
  });

  test("a path inside an ignored directory is searched, other rules still apply below it", async () => {
    const d = tempDir();
    writeTree(d, {
      ".git/HEAD": "x",
      ".gitignore": "node_modules/\ndist/\n",
      "node_modules/pkg/index.js": "needle\n",
      "node_modules/pkg/dist/bundle.js": "needle\n",
    });
    const r = await grep(engine, { pattern: "needle", path: "node_modules/pkg" }, d);
    expect(r.content).toBe(path.join(d, "node_modules/pkg/index.js"));
    expect((await grep(engine, { pattern: "needle" }, d)).content).toBe("No files found");
  });

  test("parent .gitignore applies below it; huge lines are cut", async () => {
    const d = tempDir();
    mkdirSync(path.join(d, ".git"));
    mkdirSync(path.join(d, "pkg/sub"), { recursive: true });
    writeFileSync(path.join(d, ".gitignore"), "*.gen\n");
    writeFileSync(path.join(d, "pkg/sub/a.gen"), "needle\n");
    const long = `${"x".repeat(3000)}needle${"y".repeat(200_000)}\n`;
    writeFileSync(path.join(d, "pkg/sub/big.txt"), `${"filler line\n".repeat(200_000)}${long}`);
    const r = await grep(engine, { pattern: "needle", output_mode: "content", path: path.join(d, "pkg/sub") });
    expect(r.content).toBe(`${path.join(d, "pkg/sub/big.txt")}:200001:${"x".repeat(500)} [... line truncated]`);
  });

  test("content past the old 200,000-line cap pages like any other (issue 20.5: kept as shown, the rest counted)", async () => {
    const d = tempDir();
    writeFileSync(path.join(d, "many.txt"), "hit\n".repeat(200_001));
    const f = path.join(d, "many.txt");
    const r = await grep(engine, { pattern: "hit", output_mode: "content" }, d);
    expect(r.isError).toBeUndefined();
    const lines = String(r.content).split("\n");
    expect(lines[0]).toBe(`${f}:1:hit`);
    expect(lines[249]).toBe(`${f}:250:hit`);
    expect(lines.at(-1)).toBe("[Showing results 1-250 of 200001. Call Grep again with offset: 250 to see the next ones, or narrow the search.]");
    const mid = await grep(engine, { pattern: "hit", output_mode: "content", offset: 100_000, head_limit: 2 }, d);
    expect(mid.content).toBe(
      `${f}:100001:hit\n${f}:100002:hit\n\n[Showing results 100001-100002 of 200001. Call Grep again with offset: 100002 to see the next ones, or narrow the search.]`,
    );
    // Pages reach as far as Grep keeps (MAX_KEPT_ENTRIES); past it the model is told to narrow the search.
    const edge = await grep(engine, { pattern: "hit", output_mode: "content", offset: 199_999 }, d);
    expect(edge.content).toBe(
      `${f}:200000:hit\n\n[Showing results 200000-200000 of 200001. Grep pages through the first 200000 only: narrow the search (a more specific pattern, path, glob or type) to see the rest.]`,
    );
    const past = await grep(engine, { pattern: "hit", output_mode: "content", offset: 200_000 }, d);
    expect(past.content).toBe(
      "Grep pages through the first 200000 of its 200001 results only. Narrow the search (a more specific pattern, path, glob or type) to reach the rest.",
    );
    expect((await grep(engine, { pattern: "hit", output_mode: "count" }, d)).content).toStartWith(`${f}:200001`);
  });

  test("a FIFO with no writer, which once made a search that never ended, is refused at once (issue 20.5)", async () => {
    const d = tempDir();
    const fifo = path.join(d, "pipe");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const r = await grep(engine, { pattern: "x", path: fifo }, d);
    expect(r.isError).toBe(true);
    expect(r.content).toContain("is not a regular file or a directory (a FIFO, socket or device)");
  });

  test("abort stops the search and says so", async () => {
    const ac = new AbortController();
    ac.abort();
    const r = await grep(engine, { pattern: "foo" }, root, { signal: ac.signal });
    expect(r.isError).toBe(true);
    expect(r.content).toBe("Grep was interrupted by the user.");
  });
});

test.skipIf(!hasRg)("both engines give the same answer on a batch of queries", async () => {
  const queries: GrepInput[] = [
    { pattern: "o", output_mode: "content", "-C": 2 },
    { pattern: "[[:upper:]]", output_mode: "content" },
    { pattern: "(?i)foo", output_mode: "count" },
    { pattern: "\\bfoo\\b", output_mode: "content", "-B": 1 },
    { pattern: "^$", output_mode: "count" },
    { pattern: "e\\n", multiline: true, output_mode: "content" },
    { pattern: "(?P<w>fo+)", glob: "**/*.ts" },
    { pattern: "\\d", output_mode: "content", "-n": false },
    { pattern: "o+", output_mode: "content", "-o": true, "-C": 1 },
    { pattern: "x*", output_mode: "content", "-o": true, path: "a.txt" },
    { pattern: "t\\nm", multiline: true, output_mode: "count" },
    { pattern: "foo\\s+\\w+", multiline: true, output_mode: "content", "-A": 1 },
    { pattern: "(?s)start.*end", multiline: true, output_mode: "content" },
    { pattern: "[^a-z ]", output_mode: "count" },
    { pattern: "\\w+\\s*$", output_mode: "content", "-o": true },
  ];
  for (const q of queries) {
    const [a, b] = await Promise.all([grep("rg", q), grep("builtin", q)]);
    expect({ q, out: b.content }).toEqual({ q, out: a.content });
  }
  // 15 queries, each a ripgrep process: more than the 5 s default on a loaded 2-core machine.
});

test("YOKE_GREP_ENGINE=rg without rg on the PATH yoke started with is reported", async () => {
  const saved = process.env.PATH;
  process.env.PATH = "/nonexistent";
  let r: Awaited<ReturnType<ReturnType<typeof createGrepTool>["run"]>>;
  try {
    r = await createGrepTool().run({ pattern: "x" }, makeCtx(root, {}, { YOKE_GREP_ENGINE: "rg" }));
  } finally {
    process.env.PATH = saved;
  }
  expect(r.isError).toBe(true);
  expect(String(r.content)).toContain("no `rg` executable is on PATH");
  const b = await createGrepTool().run({ pattern: "hello" }, makeCtx(root, {}, { YOKE_GREP_ENGINE: "builtin" }));
  expect((b.details as { engine: string }).engine).toBe("builtin");
});

test("a session PATH (settings env) with its own `rg` first does not pick the engine (issue 16 point 10)", async () => {
  const bin = path.join(root, "evil-bin");
  mkdirSync(bin, { recursive: true });
  const marker = path.join(bin, "ran");
  writeFileSync(path.join(bin, "rg"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
  await createGrepTool().run({ pattern: "hello", output_mode: "content" }, makeCtx(root, {}, { PATH: `${bin}:${process.env.PATH}` }));
  expect(existsSync(marker)).toBe(false);
});

test("regex translation and literal prefilter", () => {
  expect(translateRegex("(?P<n>a)[[:digit:]]\\A.", { ignoreCase: false, multiline: false }).source).toBe("(?<n>a)[0-9](?<![^\\n])[^\\n]");
  expect(translateRegex("(?i)abc", { ignoreCase: false, multiline: false }).flags).toContain("i");
  expect(() => translateRegex("(a)\\1", { ignoreCase: false, multiline: false })).toThrow("backreferences");
  expect(requiredLiteral("foo\\.bar", false)).toBe("foo.bar");
  expect(requiredLiteral("abcd?e", false)).toBe("abc");
  expect(requiredLiteral("foo|bar", false)).toBeNull();
  expect(requiredLiteral("foo", true)).toBeNull();
});
