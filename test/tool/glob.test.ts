import { afterAll, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import path from "node:path";
import { createGlobTool } from "../../src/tool/builtin/glob.ts";
import { makeCtx, removeTempDirs, tempDir, writeTree } from "./search-ctx.ts";

const root = tempDir();
writeTree(root, {
  ".git/config": "x",
  ".git/info/exclude": "local-only.ts\n",
  ".gitignore": "dist/\n*.gen.ts\n",
  "local-only.ts": "",
  "a.ts": "",
  "a.gen.ts": "",
  "src/b.ts": "",
  "src/c.js": "",
  "src/.gitignore": "private/\n",
  "src/private/p.ts": "",
  "src/lib/d.ts": "",
  "dist/e.ts": "",
  ".config/f.ts": "",
  "README.md": "",
});
const p = (rel: string) => path.join(root, rel);
afterAll(removeTempDirs);
const run = (input: { pattern: string; path?: string }, cwd = root, opts = {}) =>
  createGlobTool(opts).run(input, makeCtx(cwd));

test("Glob lists absolute paths newest first, honouring .gitignore (root, nested, info/exclude), skipping .git, with hidden files (contracts §7.2)", async () => {
  const r = await run({ pattern: "**/*.ts" });
  expect(r.content).toBe([".config/f.ts", "src/lib/d.ts", "src/b.ts", "a.ts"].map(p).join("\n"));
  expect(r.details).toMatchObject({ numFiles: 4, truncated: false });
});

test("a pattern without ** matches at the top only; a literal prefix and path narrow the walk", async () => {
  expect((await run({ pattern: "*.md" })).content).toBe(p("README.md"));
  expect((await run({ pattern: "src/**/*.{ts,js}" })).content).toBe(["src/lib/d.ts", "src/c.js", "src/b.ts"].map(p).join("\n"));
  expect((await run({ pattern: "*.ts", path: "src/lib" })).content).toBe(p("src/lib/d.ts"));
  expect((await run({ pattern: `${root}/src/*.js` })).content).toBe(p("src/c.js"));
  expect((await run({ pattern: "**/*.ts" }, path.join(root, "src"))).content).toBe(["src/lib/d.ts", "src/b.ts"].map(p).join("\n"));
});

test("a path inside an ignored directory is listed; other rules still apply below it", async () => {
  expect((await run({ pattern: "**/*", path: "dist" })).content).toBe(p("dist/e.ts"));
  expect((await run({ pattern: "**/*.ts", path: "src/private" })).content).toBe(p("src/private/p.ts"));
});

test("no match, empty dir, missing prefix", async () => {
  expect((await run({ pattern: "**/*.rs" })).content).toBe("No files found");
  expect((await run({ pattern: "**/*" }, tempDir())).content).toBe("No files found");
  expect((await run({ pattern: "nope/**/*.ts" })).content).toBe("No files found");
});

test("more than the limit: capped, with a note of how many were left out", async () => {
  const d = tempDir();
  const files: Record<string, string> = {};
  for (let i = 0; i < 130; i++) files[`f${String(i).padStart(3, "0")}.txt`] = "";
  writeTree(d, files);
  const r = await run({ pattern: "*.txt" }, d);
  const lines = String(r.content).split("\n");
  expect(lines).toHaveLength(101);
  expect(lines[0]).toBe(path.join(d, "f129.txt"));
  expect(lines[99]).toBe(path.join(d, "f030.txt"));
  expect(lines[100]).toBe(
    "(Results are truncated: showing the 100 most recently modified of 130 matching files, 30 left out. Use a more specific pattern or path.)",
  );
  expect(r.details).toMatchObject({ numFiles: 130, truncated: true });
});

test("errors are worded for the model: missing path, file as path", async () => {
  const missing = await run({ pattern: "*", path: "nope" });
  expect(missing.isError).toBe(true);
  expect(String(missing.content)).toContain(`Path does not exist: ${p("nope")}. The current working directory is ${root}.`);
  const file = await run({ pattern: "*", path: "a.ts" });
  expect(file.isError).toBe(true);
  expect(String(file.content)).toContain("is a file, not a directory");
});

test("symlinked files are listed, symlinked directories are not walked; respectIgnore: false lists ignored files", async () => {
  const d = tempDir();
  writeTree(d, { ".gitignore": "ignored.txt\n", "real/x.txt": "", "ignored.txt": "" });
  symlinkSync(path.join(d, "real/x.txt"), path.join(d, "link.txt"));
  symlinkSync(path.join(d, "real"), path.join(d, "linkdir"));
  const r = await run({ pattern: "**/*.txt" }, d);
  expect(String(r.content).split("\n").sort()).toEqual([path.join(d, "link.txt"), path.join(d, "real/x.txt")]);
  const all = await run({ pattern: "**/*.txt" }, d, { respectIgnore: false });
  expect(String(all.content)).toContain(path.join(d, "ignored.txt"));
});

test("abort is reported as an interruption", async () => {
  const ac = new AbortController();
  ac.abort();
  const r = await createGlobTool().run({ pattern: "**/*" }, makeCtx(root, { signal: ac.signal }));
  expect(r).toEqual({ content: "Glob was interrupted by the user.", isError: true });
});
