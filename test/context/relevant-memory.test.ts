import { describe, expect, test } from "bun:test";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { formatMemoryManifest, parseSelection, scanMemoryFiles, selectRelevantMemories } from "../../src/context/relevant-memory.ts";
import type { SideQuery } from "../../src/tool/types.ts";
import { tempRoot, writeTree } from "./helpers.ts";

const mem = (name: string, type: string, description: string, body = "body") => `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n${body}\n`;

function memoryDir() {
  const R = tempRoot();
  writeTree(R, {
    "MEMORY.md": "- index",
    "testing.md": mem("testing", "feedback", "run integration tests against a real database"),
    "role.md": mem("role", "user", "user is a data scientist"),
    "sub/deploy.md": mem("deploy", "project", "release freeze starts 2026-03-05"),
    "notype.md": "no frontmatter here",
  });
  const now = Date.now() / 1000;
  utimesSync(join(R, "testing.md"), now, now);
  utimesSync(join(R, "role.md"), now - 100, now - 100);
  utimesSync(join(R, "sub/deploy.md"), now - 10 * 86400, now - 10 * 86400);
  utimesSync(join(R, "notype.md"), now - 200, now - 200);
  return R;
}

const fake = (answer: string | (() => Promise<string>), seen: Array<{ system: string; prompt: string }> = []): SideQuery => async (args) => {
  seen.push({ system: args.system, prompt: args.prompt });
  return typeof answer === "string" ? answer : answer();
};

describe("scan and manifest (internals §2.4)", () => {
  test("topic files newest first, MEMORY.md excluded, type and description from frontmatter", () => {
    const R = memoryDir();
    const files = scanMemoryFiles(R);
    expect(files.map((f) => f.rel)).toEqual(["testing.md", "role.md", "notype.md", "sub/deploy.md"]);
    const manifest = formatMemoryManifest(files).split("\n");
    expect(manifest[0]).toMatch(/^- \[feedback\] testing\.md \(\d{4}-\d\d-\d\dT.*Z\): run integration tests against a real database$/);
    expect(manifest[2]).toMatch(/^- notype\.md \(.*\)$/);
  });
});

describe("selectRelevantMemories (internals §4)", () => {
  test("returns the picked files with headers, updates surfaced set and budget", async () => {
    const R = memoryDir();
    const seen: Array<{ system: string; prompt: string }> = [];
    const surfaced = new Set<string>();
    const budget = { bytesUsed: 0 };
    const got = await selectRelevantMemories({
      dir: R,
      prompt: "how should I test the db layer",
      sideQuery: fake('Sure! {"selected_memories": ["testing.md", "sub/deploy.md", "made-up.md"]}', seen),
      alreadySurfaced: surfaced,
      budget,
    });
    expect(got.map((m) => m.path)).toEqual([join(R, "testing.md"), join(R, "sub/deploy.md")]);
    expect(got[0]!.header).toBe(`Memory (saved today): ${join(R, "testing.md")}:`);
    expect(got[1]!.header).toContain("10 days ago");
    expect(got[0]!.content).toContain("body");
    expect(seen[0]!.prompt.startsWith("Query: how should I test the db layer\n\nAvailable memories:\n")).toBe(true);
    expect(seen[0]!.prompt).toContain("sub/deploy.md");
    expect(seen[0]!.prompt).not.toContain("MEMORY.md");
    expect(surfaced.has(join(R, "testing.md"))).toBe(true);
    expect(budget.bytesUsed).toBe(got.reduce((n, m) => n + Buffer.byteLength(m.content), 0));
    // Already surfaced files are neither offered nor returned again.
    const again: Array<{ system: string; prompt: string }> = [];
    const second = await selectRelevantMemories({ dir: R, prompt: "more about tests", sideQuery: fake('["testing.md","role.md"]', again), alreadySurfaced: surfaced, budget });
    expect(second.map((m) => m.path)).toEqual([join(R, "role.md")]);
    expect(again[0]!.prompt).not.toContain("testing.md");
  });

  test("at most 5, each cut at 4 KB / 200 lines with a note", async () => {
    const R = tempRoot();
    const files: Record<string, string> = {};
    for (let i = 0; i < 7; i++) files[`m${i}.md`] = mem(`m${i}`, "project", `memory ${i}`);
    files["big.md"] = mem("big", "reference", "huge", "w".repeat(10_000));
    files["long.md"] = mem("long", "reference", "long", Array.from({ length: 300 }, (_, i) => `l${i}`).join("\n"));
    writeTree(R, files);
    const names = ["big.md", "long.md", "m0.md", "m1.md", "m2.md", "m3.md"];
    const got = await selectRelevantMemories({ dir: R, prompt: "two words", sideQuery: fake(JSON.stringify({ selected_memories: names })), alreadySurfaced: new Set(), budget: { bytesUsed: 0 } });
    expect(got.length).toBe(5);
    expect(got[0]!.content).toContain("4096 byte limit");
    expect(Buffer.byteLength(got[0]!.content.split("\n\n> This memory was cut")[0]!)).toBeLessThanOrEqual(4096);
    expect(got[1]!.content).toContain("first 200 lines");
    expect(got[1]!.content).not.toContain("l250");
  });

  test("the 60 KB session budget stops selection", async () => {
    const R = memoryDir();
    const got = await selectRelevantMemories({ dir: R, prompt: "a b", sideQuery: fake('["testing.md"]'), alreadySurfaced: new Set(), budget: { bytesUsed: 60 * 1024 - 10 } });
    expect(got).toEqual([]);
  });

  test.each([
    ["the side query throws", fake(async () => Promise.reject(new Error("boom")))],
    ["the answer is not JSON", fake("I think testing.md")],
    ["the answer picks nothing", fake('{"selected_memories": []}')],
    ["the side query never answers (timeout)", fake(() => new Promise<string>(() => {}))],
  ])("%s → []", async (_why, sideQuery) => {
    const R = memoryDir();
    expect(await selectRelevantMemories({ dir: R, prompt: "two words", sideQuery, alreadySurfaced: new Set(), budget: { bytesUsed: 0 }, timeoutMs: 50 })).toEqual([]);
  });

  test("single-word prompts, an aborted signal and a missing directory give []", async () => {
    const R = memoryDir();
    const base = { sideQuery: fake('["testing.md"]'), alreadySurfaced: new Set<string>(), budget: { bytesUsed: 0 } };
    expect(await selectRelevantMemories({ ...base, dir: R, prompt: "tests" })).toEqual([]);
    const ac = new AbortController();
    const p = selectRelevantMemories({ ...base, dir: R, prompt: "two words", sideQuery: fake(() => new Promise(() => {})), signal: ac.signal });
    ac.abort();
    expect(await p).toEqual([]);
    expect(await selectRelevantMemories({ ...base, dir: join(R, "nope"), prompt: "two words" })).toEqual([]);
  });

  test.each([
    ['{"selected_memories":["a.md"]}', ["a.md"]],
    ['```json\n{"selected_memories": ["a.md", "b.md"]}\n```', ["a.md", "b.md"]],
    ['["x.md", 3]', ["x.md"]],
    ["nothing", []],
  ])("parseSelection(%j)", (text, want) => {
    expect(parseSelection(text)).toEqual(want);
  });
});
