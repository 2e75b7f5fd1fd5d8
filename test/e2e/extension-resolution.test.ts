// Issue 14 points 1 and 3, the parts the other end-to-end files left to unit tests, now in the compiled binary:
// skills from every folder from the working directory up to the repository root (and none above it), and a plugin of
// a local-directory marketplace loading from its source folder, so its files beside it resolve.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { yokeBin } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { requestText, runWith, say, systemText } from "./hooks-helpers.ts";

setDefaultTimeout(60_000);
beforeAll(() => void yokeBin());

const skill = (d: string) => `---\ndescription: ${d}\n---\nBODY of ${d}\n`;

describe("project skills from the working directory up to the repository root (issue 14 point 1)", () => {
  test("a package folder sees its own skills and the root's; a folder above the repository is not read; the closer one wins a clash", async () => {
    const above = tempDir("yoke-above-");
    const repo = join(above, "repo");
    writeTree(above, {
      ".claude/skills/outside/SKILL.md": skill("OUTSIDE-THE-REPO"),
      "repo/.git/HEAD": "ref: refs/heads/main\n",
      "repo/.claude/skills/root-skill/SKILL.md": skill("ROOT-SKILL"),
      "repo/.claude/skills/twin/SKILL.md": skill("TWIN-FROM-ROOT"),
      "repo/pkg/.claude/skills/pkg-skill/SKILL.md": skill("PKG-SKILL"),
      "repo/pkg/.claude/skills/twin/SKILL.md": skill("TWIN-FROM-PKG"),
      "repo/pkg/.claude/settings.json": "{}",
    });
    const r = await runWith(join(repo, "pkg"), [say("ok")], []);
    const sys = systemText(r.requests[0]!) + requestText(r.requests[0]!);
    expect(sys).toContain("ROOT-SKILL");
    expect(sys).toContain("PKG-SKILL");
    expect(sys).toContain("TWIN-FROM-PKG");
    expect(sys).not.toContain("TWIN-FROM-ROOT");
    expect(sys).not.toContain("OUTSIDE-THE-REPO");
    // Listed, not loaded: no body before the model asks for it.
    expect(sys).not.toContain("BODY of ROOT-SKILL");
  });
});

describe("a plugin of a local-directory marketplace (issue 14 point 3)", () => {
  test("loads from the marketplace's source folder, not the older cached copy: its command's ${CLAUDE_PLUGIN_ROOT} script reads a file shared in the marketplace", async () => {
    const home = tempDir("yoke-home-");
    const claude = join(home, ".claude");
    const market = tempDir("yoke-market-");
    const plugin = (version: string, word: string) => ({
      ".claude-plugin/plugin.json": JSON.stringify({ name: "p", version }),
      "commands/show.md": `---\ndescription: shows the shared note\nallowed-tools: Bash(sh:*)\n---\n${word}: !\`sh \${CLAUDE_PLUGIN_ROOT}/scripts/show.sh\`\n`,
      // Reaches outside the plugin folder into the marketplace, as marketplace plugins do with shared code.
      "scripts/show.sh": 'cat "$(dirname "$0")/../../../shared/note.txt"\n',
    });
    const at = (prefix: string, tree: Record<string, string>) => Object.fromEntries(Object.entries(tree).map(([k, v]) => [`${prefix}/${k}`, v]));
    writeTree(market, {
      ".claude-plugin/marketplace.json": JSON.stringify({ name: "local", owner: { name: "me" }, plugins: [{ name: "p", source: "./plugins/p" }] }),
      "shared/note.txt": "SHARED-NOTE-FROM-THE-MARKETPLACE\n",
      ...at("plugins/p", plugin("2.0.0", "SOURCE-COPY")),
    });
    writeTree(claude, {
      "plugins/known_marketplaces.json": JSON.stringify({ local: { source: { source: "directory", path: market }, installLocation: market } }),
      ...at("plugins/cache/local/p/1.0.0", plugin("1.0.0", "CACHED-COPY")),
      "plugins/installed_plugins.json": JSON.stringify({ plugins: { "p@local": [{ scope: "user", installPath: join(claude, "plugins/cache/local/p/1.0.0"), version: "1.0.0" }] } }),
      "settings.json": JSON.stringify({ enabledPlugins: { "p@local": true } }),
    });
    const cwd = tempDir("yoke-proj-");
    const r = await runWith(cwd, [say("shown")], ["--output-format", "json"], { prompt: "/p:show", env: { HOME: home, CLAUDE_CONFIG_DIR: claude } });
    expect(r.code).toBe(0);
    const text = requestText(r.requests[0]!);
    expect(text).toContain("SOURCE-COPY: SHARED-NOTE-FROM-THE-MARKETPLACE");
    expect(text).not.toContain("CACHED-COPY");
  });
});
