// Issue 14 point 7 end to end in the compiled binary: the usual start takes the whole discovery of the run before
// (no skill or command file read) and still sees every change on the next run; the listing's budget applies as
// Claude Code's does; managed strictPluginOnlyCustomization keeps personal and project skills out.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { yokeBin } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { project, runWith, say, systemText } from "./hooks-helpers.ts";

setDefaultTimeout(60_000);

beforeAll(() => {
  yokeBin();
});

/** The cache files of the one project under this home's yoke state. */
const cacheFiles = (home: string) => {
  const projects = join(home, ".yoke", "projects");
  const dir = join(projects, readdirSync(projects).find((d) => existsSync(join(projects, d, "extensions-cache.json")))!);
  return { whole: join(dir, "extensions-cache.json"), rows: join(dir, "extensions-cache.rows.json") };
};

describe("the whole discovery of the run before (issue 14 point 7)", () => {
  test("held: the next start answers from it alone; after edits in the same second, a rename, a new nested folder, a deletion and a broken file, the next start sees each", async () => {
    const cwd = project();
    const home = tempDir("yoke-dcache-home-");
    writeTree(cwd, {
      ".claude/skills/tidy/SKILL.md": "---\ndescription: Tidies v1\n---\nTIDY\n",
      ".claude/skills/old-name/SKILL.md": "---\ndescription: Renamed soon\n---\nR\n",
      ".claude/skills/doomed/SKILL.md": "---\ndescription: Deleted soon\n---\nD\n",
      ".claude/commands/go.md": "---\ndescription: Goes\n---\nGO\n",
    });
    const files = ["tidy", "old-name", "doomed"].map((n) => join(cwd, ".claude/skills", n, "SKILL.md"));
    // The cache trusts a file only once it was two seconds old when read (its ctime cannot be set back).
    const newest = Math.max(...[...files, join(cwd, ".claude/commands/go.md")].map((f) => statSync(f).ctimeMs));
    await waitFor(() => Date.now() > newest + 2100, "the files to be two seconds old");
    const env = { env: { HOME: home } };

    const first = await runWith(cwd, [say("ok")], [], env);
    expect(systemText(first.requests[0]!)).toContain("- tidy: Tidies v1");
    const cache = cacheFiles(home);
    expect(JSON.parse(readFileSync(cache.whole, "utf8")).snaps).toBeDefined();
    // Without the per-file entries, the second start still lists everything: the whole result answered alone.
    rmSync(cache.rows);
    const second = await runWith(cwd, [say("ok")], [], env);
    const sys2 = systemText(second.requests[0]!);
    for (const line of ["- tidy: Tidies v1", "- old-name: Renamed soon", "- doomed: Deleted soon", "- go: Goes"]) expect(sys2).toContain(line);
    expect(existsSync(cache.rows)).toBe(false);

    // All in the same second: same size with the mtime put back, a rename, a new nested folder, a deletion, a broken file.
    const before = statSync(files[0]!);
    writeFileSync(files[0]!, "---\ndescription: Tidies v2\n---\nTIDY\n");
    utimesSync(files[0]!, before.atime, before.mtime);
    renameSync(join(cwd, ".claude/skills/old-name"), join(cwd, ".claude/skills/new-name"));
    writeTree(cwd, { ".claude/commands/ops/deep/ship.md": "---\ndescription: Ships deep\n---\nS\n", ".claude/skills/broken/SKILL.md": "---\n- just\n- a list\n---\n" });
    rmSync(join(cwd, ".claude/skills/doomed"), { recursive: true });
    const third = await runWith(cwd, [say("ok")], [], env);
    const sys3 = systemText(third.requests[0]!);
    expect(sys3).toContain("- tidy: Tidies v2");
    expect(sys3).toContain("- new-name: Renamed soon");
    expect(sys3).not.toContain("old-name");
    expect(sys3).toContain("- ship: Ships deep (project:ops/deep)");
    expect(sys3).not.toContain("doomed");
    const broken = third.stderr.split("\n").filter((l) => l.includes("broken/SKILL.md"));
    expect(broken).toHaveLength(1);
    expect(broken[0]).toContain(join(cwd, ".claude/skills/broken/SKILL.md"));
    // And once more on the start after (from the cache or not, said once each run).
    const fourth = await runWith(cwd, [say("ok")], [], env);
    expect(fourth.stderr.split("\n").filter((l) => l.includes("broken/SKILL.md"))).toHaveLength(1);
    expect(systemText(fourth.requests[0]!)).toBe(sys3);
  });

  // The cache is written a while after the first request is built (never on that request's path) or, when the run
  // ends first, at exit: a run far shorter than the delay still leaves it for the next start.
  test("a run that ends before the write is due writes the cache at exit; the next start takes it", async () => {
    const cwd = project();
    const home = tempDir("yoke-dcache-home-");
    writeTree(cwd, { ".claude/skills/tidy/SKILL.md": "---\ndescription: Tidies\n---\nTIDY\n" });
    const newest = statSync(join(cwd, ".claude/skills/tidy/SKILL.md")).ctimeMs;
    await waitFor(() => Date.now() > newest + 2100, "the file to be two seconds old");
    const env = { env: { HOME: home, YOKE_DISCOVERY_SAVE_MS: "600000" } };
    const first = await runWith(cwd, [say("ok")], [], env);
    expect(first.code).toBe(0);
    const cache = cacheFiles(home);
    expect(JSON.parse(readFileSync(cache.whole, "utf8")).snaps).toBeDefined();
    rmSync(cache.rows);
    const second = await runWith(cwd, [say("ok")], [], env);
    expect(systemText(second.requests[0]!)).toContain("- tidy: Tidies");
    // Answered from the whole result alone: the per-file entries were not needed, so not written again.
    expect(existsSync(cache.rows)).toBe(false);
  });
});

describe("the listing's budget applies (contracts §6.2; observed in 2.1.332)", () => {
  const many = () => {
    const cwd = project();
    const tree: Record<string, string> = {};
    for (let i = 0; i < 60; i++) tree[`.claude/skills/skill-${i}/SKILL.md`] = `---\ndescription: ${`Handles task family ${i} with care. `.repeat(4)}\n---\nB\n`;
    writeTree(cwd, tree);
    return cwd;
  };
  const listing = (sys: string) => /# Skills\n[\s\S]*?(?=\n\n|$)/.exec(sys)?.[0] ?? "";

  test("SLASH_COMMAND_TOOL_CHAR_BUDGET caps the listing; every name still there while names fit", async () => {
    const cwd = many();
    const full = listing(systemText((await runWith(cwd, [say("ok")], [])).requests[0]!));
    expect(full.length).toBeGreaterThan(9000);
    const r = await runWith(cwd, [say("ok")], [], { env: { SLASH_COMMAND_TOOL_CHAR_BUDGET: "4000" } });
    const cut = listing(systemText(r.requests[0]!));
    expect(cut.length).toBeLessThanOrEqual(4000);
    for (let i = 0; i < 60; i++) expect(cut).toContain(`- skill-${i}`);
  });

  test("by default 1% of the model's window: a 200k-token model cuts the listing to 8,000 characters, names kept", async () => {
    const cwd = many();
    const r = await runWith(cwd, [say("ok")], ["--model", "claude-sonnet-4-5"]);
    const cut = listing(systemText(r.requests[0]!));
    expect(cut.length).toBeLessThanOrEqual(8000);
    expect(cut.length).toBeGreaterThan(6000);
    for (let i = 0; i < 60; i++) expect(cut).toContain(`- skill-${i}`);
  });

  test("skillListingBudgetFraction and skillListingMaxDescChars from settings; a bad value is said naming the key", async () => {
    const cwd = many();
    writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({ skillListingMaxDescChars: 30 }));
    const r = await runWith(cwd, [say("ok")], []);
    expect(listing(systemText(r.requests[0]!))).toContain(`- skill-7: ${"Handles task family 7 with care. ".slice(0, 29)}…`);
    writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({ skillListingBudgetFraction: 7 }));
    const bad = await runWith(cwd, [say("ok")], []);
    expect(bad.code).toBe(0);
    expect(bad.stderr).toContain('"skillListingBudgetFraction"');
  });
});

describe("strictPluginOnlyCustomization in managed settings (observed in 2.1.332)", () => {
  const setup = (value: unknown) => {
    const cwd = project();
    const home = tempDir("yoke-strict-home-");
    const policy = tempDir("yoke-strict-policy-");
    const plug = tempDir("yoke-strict-plug-");
    writeTree(cwd, { ".claude/skills/proj/SKILL.md": "---\ndescription: Project skill\n---\nP\n", ".claude/commands/projcmd.md": "---\ndescription: Project command\n---\nC\n" });
    writeTree(home, { ".claude/skills/mine/SKILL.md": "---\ndescription: Personal skill\n---\nM\n" });
    writeTree(policy, { "managed-settings.json": JSON.stringify({ strictPluginOnlyCustomization: value }), ".claude/skills/org/SKILL.md": "---\ndescription: Managed skill\n---\nO\n" });
    writeTree(plug, { ".claude-plugin/plugin.json": JSON.stringify({ name: "kit" }), "skills/tool/SKILL.md": "---\ndescription: Plugin skill\n---\nT\n" });
    return { cwd, run: () => runWith(cwd, [say("ok")], ["--plugin-dir", plug], { env: { HOME: home, YOKE_MANAGED_DIR: policy } }), policy };
  };

  test('["skills"]: managed and plugin skills load; personal and project skills and commands do not', async () => {
    const { run } = setup(["skills"]);
    const r = await run();
    const sys = systemText(r.requests[0]!);
    expect(sys).toContain("- org: Managed skill");
    expect(sys).toContain("- kit:tool: Plugin skill");
    for (const gone of ["Project skill", "Project command", "Personal skill"]) expect(sys).not.toContain(gone);
  });

  test('["agents"]: the Agent tool offers plugin agents, not personal or project ones; skills still load', async () => {
    const cwd = project();
    const home = tempDir("yoke-strict-home-");
    const policy = tempDir("yoke-strict-policy-");
    const plug = tempDir("yoke-strict-plug-");
    const agent = (name: string) => `---\nname: ${name}\ndescription: The ${name} agent\n---\nPROMPT\n`;
    writeTree(cwd, { ".claude/agents/proj-agent.md": agent("proj-agent"), ".claude/skills/proj/SKILL.md": "---\ndescription: Project skill\n---\nP\n" });
    writeTree(home, { ".claude/agents/my-agent.md": agent("my-agent") });
    writeTree(policy, { "managed-settings.json": JSON.stringify({ strictPluginOnlyCustomization: ["agents"] }) });
    writeTree(plug, { ".claude-plugin/plugin.json": JSON.stringify({ name: "kit" }), "agents/helper.md": agent("helper") });
    const r = await runWith(cwd, [say("ok")], ["--plugin-dir", plug], { env: { HOME: home, YOKE_MANAGED_DIR: policy } });
    const agentTool = JSON.stringify(r.requests[0]!.body.tools.find((t: { name: string }) => t.name === "Agent"));
    expect(agentTool).toContain("kit:helper");
    expect(agentTool).not.toContain("proj-agent");
    expect(agentTool).not.toContain("my-agent");
    expect(systemText(r.requests[0]!)).toContain("- proj: Project skill");
  });

  test("false, or a list without skills, locks nothing here; a value of another type is said and locks all", async () => {
    for (const v of [false, ["hooks"]]) {
      const sys = systemText((await setup(v).run()).requests[0]!);
      expect(sys).toContain("- proj: Project skill");
      expect(sys).toContain("- mine: Personal skill");
    }
    const { run, policy } = setup("yes");
    const r = await run();
    expect(r.stderr).toContain(join(policy, "managed-settings.json"));
    expect(r.stderr).toContain('"strictPluginOnlyCustomization"');
    expect(systemText(r.requests[0]!)).not.toContain("Project skill");
  });
});
