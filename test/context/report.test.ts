import { expect, test } from "bun:test";
import { join } from "node:path";
import { memoryIndexFile } from "../../src/context/auto-memory.ts";
import { discoverInstructions } from "../../src/context/instructions.ts";
import { contextReport, formatContextReport } from "../../src/context/report.ts";
import { envFor, noSettings, tempRoot, writeTree } from "./helpers.ts";

test("contextReport: token breakdown by kind, files in order with status and reason", () => {
  const R = tempRoot();
  writeTree(R, {
    "p/CLAUDE.md": "x".repeat(400),
    "p/AGENTS.md": "agents",
    "p/.claude/rules/cond.md": "---\npaths: src/**\n---\nconditional",
    "mem/MEMORY.md": "y".repeat(80),
  });
  const set = discoverInstructions({ cwd: join(R, "p"), env: envFor(R), settings: noSettings() });
  const files = [...set.files, memoryIndexFile(join(R, "mem"))!];
  const report = contextReport({
    files,
    systemSections: [{ name: "a", text: "s".repeat(800) }],
    tools: [{ name: "Read", description: "d".repeat(34), jsonSchema: {} }],
    messages: ["m".repeat(40)],
  });
  expect(report.breakdown).toEqual({ system: 200, tools: 10, instructions: 100, memory: 20, messages: 10 });
  expect(report.total).toBe(340);
  const text = formatContextReport(report);
  const at = (s: string) => text.indexOf(s);
  expect(at(join(R, "p/CLAUDE.md"))).toBeGreaterThan(0);
  expect(at(join(R, "p/CLAUDE.md"))).toBeLessThan(at(join(R, "p/AGENTS.md")));
  expect(text).toContain("skipped (CLAUDE.md exists in this directory; AGENTS.md is only a fallback)");
  expect(text).toContain("deferred (paths: src/**)");
  expect(text).toMatch(/Instructions\s+100/);
  expect(text).toMatch(/Total\s+340/);
  expect(text).toMatch(/1\s+project\s+400 B\s+100/);
  expect(text).toMatch(/memory\s+80 B\s+20/);
});

test("formatContextReport with no files says so", () => {
  const text = formatContextReport(contextReport({ files: [], systemSections: [] }));
  expect(text).toContain("No instruction files.");
});
