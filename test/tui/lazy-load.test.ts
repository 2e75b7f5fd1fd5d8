import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

// Issue 12 / issue 21: the headless path must not load the terminal UI. Walks the static imports from -p's entry.
function staticImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const src = readFileSync(file, "utf8");
    for (const m of src.matchAll(/^\s*(?:import|export)\s(?:[^;]*?from\s+)?"([^"]+)"/gm)) {
      const spec = m[1]!;
      if (/^import\s+type\s/.test(m[0].trim()) || /^export\s+type\s/.test(m[0].trim())) continue;
      if (spec.startsWith(".")) {
        const p = resolve(dirname(file), spec);
        if (p.endsWith(".ts")) walk(p);
      } else seen.add(`pkg:${spec}`);
    }
  };
  walk(entry);
  return seen;
}

test("the -p path imports nothing of src/tui nor the terminal UI library", () => {
  const root = resolve(import.meta.dir, "..", "..");
  const files = [...staticImports(resolve(root, "src/cli/headless.ts"))];
  expect(files.length).toBeGreaterThan(20);
  expect(files.filter((f) => f.includes("/src/tui/") || f.includes("pi-tui"))).toEqual([]);
  // main.ts reaches the terminal only through a dynamic import.
  expect(readFileSync(resolve(root, "src/main.ts"), "utf8")).toMatch(/await import\("\.\/tui\/index\.ts"\)/);
});
