// Issue 11 point 3 (DESIGN rule 8): first-party plugins have no back door. Every file under plugins/ imports
// only `yoke` (the public SDK, src/index.ts), its own files, node built-ins and npm packages; never src/ by path.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { repoRoot } from "../helpers/binary.ts";

const root = repoRoot();
const src = join(root, "src");

/**
 * Specifiers of a TS source: Bun's own scanner for value imports (dynamic ones included), plus `import type` /
 * `export … from` statements, which the scanner drops because they are erased (a type from src/ is a back door too).
 */
const importsOf = (code: string): string[] => [...new Set([
  ...new Bun.Transpiler({ loader: "ts" }).scanImports(code).map((i) => i.path),
  ...[...code.matchAll(/\b(?:import|export)\s+type\b[^;]*?\bfrom\s*["']([^"']+)["']/g)].map((m) => m[1]!),
  ...[...code.matchAll(/\bexport\s*(?:\*|\{[^}]*\})\s*from\s*["']([^"']+)["']/g)].map((m) => m[1]!),
])];

/** Specifiers in code living in `dir` that reach into src/ by path. */
const backDoors = (code: string, dir: string): string[] =>
  importsOf(code).filter((p) => p.startsWith(".") && !relative(src, resolve(dir, p)).startsWith(".."));

test("no file under plugins/ imports from src/ by path", () => {
  const files = (readdirSync(join(root, "plugins"), { recursive: true }) as string[]).filter((f) => /\.[cm]?[jt]sx?$/.test(f)).map((f) => join(root, "plugins", f));
  expect(files.length).toBeGreaterThan(5);
  const found = files.flatMap((f) => backDoors(readFileSync(f, "utf8"), dirname(f)).map((p) => `${relative(root, f)}: ${p}`));
  expect(found).toEqual([]);
});

test("the check sees a back door, type-only and dynamic imports included", () => {
  const dir = join(root, "plugins", "attribution");
  const probe = (code: string) => backDoors(code, dir);
  expect(probe(`import { x } from "../../src/util/redact.ts"; x();`)).toEqual(["../../src/util/redact.ts"]);
  expect(probe(`const m = await import("../../src/index.ts"); m.a();`)).toEqual(["../../src/index.ts"]);
  expect(probe(`import type { Settings } from "../../src/config/schema.ts";`)).toEqual(["../../src/config/schema.ts"]);
  expect(probe(`export type { Tool } from "../../src/tool/types.ts";`)).toEqual(["../../src/tool/types.ts"]);
  expect(probe(`export * from "../../src/index.ts";`)).toEqual(["../../src/index.ts"]);
  expect(probe(`import { definePlugin } from "yoke"; import { y } from "../shared/switch.ts"; definePlugin(y);`)).toEqual([]);
});
