import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  applyClawBudget,
  CLAW_OMITTED_LINE,
  collapseBlankLines,
  displayContextPath,
  discoverClawInstructions,
  normalizeInstructionContent,
  renderClawInstructions,
  truncateInstructionContent,
} from "../../src/context/claw-code.ts";
import { discoverInstructions } from "../../src/context/instructions.ts";
import { renderInstructions } from "../../src/context/render.ts";
import type { InstructionFile } from "../../src/context/types.ts";
import { envFor, settingsOf, tempRoot, writeTree } from "./helpers.ts";

// Ported from claw-code prompt.rs unit tests (internals §1.3), in the seed 002 layout (`.claude/` candidates).
const shownContents = (files: InstructionFile[]) => files.filter((f) => f.status === "included" || f.status === "truncated").map((f) => f.content);

const file = (path: string, content: string): InstructionFile => ({ layer: "project", path, size: content.length, tokens: 0, status: "included", content, loader: "claw-code" });

describe("claw-code discovery (internals §1.2, §1.3)", () => {
  test("1. discovers_instruction_files_from_ancestor_chain", () => {
    const R = tempRoot();
    writeTree(R, {
      "CLAUDE.md": "root instructions",
      "CLAUDE.local.md": "local instructions",
      "apps/CLAUDE.md": "apps instructions",
      "apps/.claude/instructions.md": "apps dot claude instructions",
      "apps/api/.claude/CLAUDE.md": "nested rules",
      "apps/api/.claude/instructions.md": "nested instructions",
    });
    const set = discoverClawInstructions({ cwd: join(R, "apps/api") });
    expect(shownContents(set.files)).toEqual([
      "root instructions",
      "local instructions",
      "apps instructions",
      "apps dot claude instructions",
      "nested rules",
      "nested instructions",
    ]);
  });

  test("2. dedupes_identical_instruction_content_across_scopes", () => {
    const R = tempRoot();
    writeTree(R, { "CLAUDE.md": "same rules\n\n", "apps/api/CLAUDE.md": "same rules\n" });
    const set = discoverClawInstructions({ cwd: join(R, "apps/api") });
    const kept = set.files.filter((f) => f.status === "included");
    expect(kept.length).toBe(1);
    expect(normalizeInstructionContent(kept[0]!.content)).toBe("same rules");
    expect(kept[0]!.path).toBe(join(R, "CLAUDE.md"));
    const dup = set.files.find((f) => f.status === "deduplicated");
    expect(dup?.reason).toBe(`same content as ${join(R, "CLAUDE.md")}`);
  });

  test("3. truncates_large_instruction_content_for_rendering", () => {
    const files = [file("/r/CLAUDE.md", "x".repeat(4500))];
    applyClawBudget(files);
    const rendered = renderClawInstructions(files);
    expect(rendered).toContain("[truncated]");
    expect(Buffer.byteLength(rendered)).toBeLessThan(4_100);
    expect(files[0]!.status).toBe("truncated");
  });

  test("4. normalizes_and_collapses_blank_lines", () => {
    expect(normalizeInstructionContent("line one\n\n\nline two\n")).toBe("line one\n\nline two");
    expect(collapseBlankLines("a\n\n\n\nb\n")).toBe("a\n\nb\n");
  });

  test("5. displays_context_paths_compactly", () => {
    expect(displayContextPath("/tmp/project/.claude/CLAUDE.md")).toBe("CLAUDE.md");
  });

  test("13. truncates_instruction_content_to_budget", () => {
    const out = truncateInstructionContent("x".repeat(5000), 4000);
    expect(out).toContain("[truncated]");
    expect(Array.from(out).length).toBeLessThanOrEqual(4000 + 13);
  });

  test("14. discovers_dot_claude_instructions_markdown", () => {
    const R = tempRoot();
    writeTree(R, { "apps/api/.claude/instructions.md": "instruction markdown" });
    const set = discoverClawInstructions({ cwd: join(R, "apps/api") });
    expect(shownContents(set.files)).toEqual(["instruction markdown"]);
    expect(renderClawInstructions(set.files)).toContain("instruction markdown");
  });

  test("15. renders_instruction_file_metadata", () => {
    const files = [file("/abs/project/CLAUDE.md", "Project rules")];
    applyClawBudget(files);
    expect(renderClawInstructions(files)).toBe("# Claude instructions\n\n## CLAUDE.md (scope: /abs/project)\n\nProject rules");
  });

  test("a directory named like a candidate is skipped, not fatal", () => {
    const R = tempRoot();
    mkdirSync(join(R, "p/CLAUDE.md"), { recursive: true });
    writeTree(R, { "p/CLAUDE.local.md": "local" });
    const set = discoverClawInstructions({ cwd: join(R, "p") });
    expect(shownContents(set.files)).toEqual(["local"]);
    expect(set.files.find((f) => f.path === join(R, "p/CLAUDE.md"))?.status).toBe("skipped");
  });
});

describe("claw-code budgets: 4,000 per file, 12,000 total (internals §1.2 worked example)", () => {
  test("three 5,000-character files then a fourth: cut, cut, cut to remaining, omitted", () => {
    const files = ["/r/a/CLAUDE.md", "/r/a/b/CLAUDE.md", "/r/a/b/c/CLAUDE.md", "/r/a/b/c/d/CLAUDE.md"].map((p, i) => file(p, String(i).repeat(5000)));
    applyClawBudget(files);
    expect(files.map((f) => f.status)).toEqual(["truncated", "truncated", "truncated", "skipped"]);
    expect(files.map((f) => Array.from(f.content).length)).toEqual([4013, 4013, 3974 + 13, 0]);
    const text = renderClawInstructions(files);
    expect(text.endsWith(CLAW_OMITTED_LINE)).toBe(true);
    expect(text.split("[truncated]").length - 1).toBe(3);
  });

  test("seed 002 diagram 5: 2,000 + 5,000 + 3,000 + 8,000, then omitted", () => {
    const sizes = [2000, 5000, 3000, 8000, 100];
    const files = sizes.map((n, i) => file(`/r${"/d".repeat(i)}/CLAUDE.md`, "y".repeat(n)));
    applyClawBudget(files);
    expect(files.map((f) => f.status)).toEqual(["included", "truncated", "included", "truncated", "skipped"]);
    expect(files[3]!.content).toBe(`${"y".repeat(2987)}\n\n[truncated]`);
    expect(files[3]!.reason).toContain("remaining total");
  });

  test("scope is the outermost contributing directory that is a prefix (claw-code quirk)", () => {
    const files = [file("/r/CLAUDE.md", "a"), file("/r/x/CLAUDE.md", "b"), file("/q/CLAUDE.md", "c")];
    applyClawBudget(files);
    expect(files.map((f) => f.scope)).toEqual(["/r", "/r", "/q"]);
  });

  test("the instructionLoader setting selects the claw-code loader, and its render is wrapped in a system-reminder", () => {
    const R = tempRoot();
    writeTree(R, { "p/CLAUDE.md": "Project rules", "p/.claude/instructions.md": "More" });
    const settings = settingsOf({ level: "user", settings: { instructionLoader: "claw-code" } });
    const set = discoverInstructions({ cwd: join(R, "p"), env: envFor(R), settings });
    expect(set.loader).toBe("claw-code");
    const text = renderInstructions(set.files);
    expect(text).toContain(`# Claude instructions\n\n## CLAUDE.md (scope: ${join(R, "p")})\n\nProject rules\n\n## instructions.md (scope: ${join(R, "p")})\n\nMore`);
    expect(text.startsWith("<system-reminder>")).toBe(true);
  });
});
