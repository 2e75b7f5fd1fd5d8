/**
 * Skills, custom commands, plugin commands and MCP prompts in the interactive session (issue 12 point 5, review
 * item 1): they join the `/` menu and /help, and a typed `/command args` runs through the same path as `-p`
 * (src/cli/prompt-turn.ts), so the expansion the model receives is byte-for-byte what `-p` sends (contracts §6.2,
 * §6.3). The compiled binary in tmux against the fake Anthropic API.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { TRUST_WORKSPACE, runYoke } from "../helpers/binary.ts";
import type { LoggedRequest } from "../helpers/fake-anthropic.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { everything } from "./mcp-helpers.ts";
import { lastUserTexts, resumeId, send, transcriptLines, tuiSuite } from "./tui-helpers.ts";

const session = tuiSuite();
const say = (text: string) => ({ content: [{ type: "text" as const, text }] });

const TREE = {
  ".claude/commands/review.md":
    "---\ndescription: Reviews one file\nargument-hint: <file>\nallowed-tools: Bash(echo:*)\n---\nReview $0 carefully (all: $ARGUMENTS).\nBranch note: !`echo BANG-OUTPUT`\nSee @notes.md for the house style.\n",
  ".claude/commands/frontend/lint.md": "Lint the frontend\n\nLINT-BODY\n",
  ".claude/commands/danger.md": "---\ndescription: Touches a file\n---\nOut: !`touch pwned.txt`\n",
  ".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploys the app to staging\n---\nDEPLOY-BODY with $ARGUMENTS.\n",
  ".claude/skills/hidden/SKILL.md": "---\ndescription: Only the model runs it\nuser-invocable: false\n---\nHIDDEN-BODY\n",
  "notes.md": "HOUSE-STYLE: tabs.\n",
  "src/app.ts": "export const x = 1;\n",
};

/** A project with the commands and skills above and a `--plugin-dir` plugin `myplug` with one command. */
function project(): { cwd: string; plugin: string } {
  const cwd = tempDir("yoke-tui-cmd-");
  writeTree(cwd, TREE);
  const plugin = join(tempDir("yoke-plug-"), "myplug");
  writeTree(plugin, {
    ".claude-plugin/plugin.json": JSON.stringify({ name: "myplug" }),
    "commands/hello.md": "---\ndescription: Greets someone\nargument-hint: <name>\n---\nPLUGIN-HELLO to $ARGUMENTS from ${CLAUDE_PLUGIN_ROOT}\n",
  });
  return { cwd, plugin };
}

const userText = (req: LoggedRequest) => lastUserTexts(req).join("\n");

describe("custom commands, skills and plugin commands at the terminal", () => {
  test("the / menu and /help list them; typed, each expands as in -p; the transcript resumes in -p", async () => {
    const { cwd, plugin } = project();
    const { fake, env, term } = await session([say("reviewed"), say("linted"), say("greeted"), say("deployed")], {
      cwd,
      argv: ["--plugin-dir", plugin],
      env: TRUST_WORKSPACE,
    });
    // The menu, filtered as the person types: name, argument hint, description and where it comes from.
    term.type("/rev");
    expect(await term.waitFor("<file> — Reviews one file (project)", { where: "screen" })).toContain("review");
    term.keys("C-c"); // clears the input
    term.type("/myp");
    await term.waitFor("myplug:hello", { where: "screen" });
    expect(term.screen()).toContain("<name> — Greets someone (plugin:myplug)");
    term.keys("C-c");
    send(term, "/help");
    const help = await term.waitFor("/myplug:hello <name>");
    expect(help).toMatch(/\/review <file>\s+Reviews one file \(project\)/);
    expect(help).toMatch(/\/deploy\s+Deploys the app to staging \(project\)/);
    expect(help).not.toContain("/hidden");

    // contracts §6.2: the marker block, then the body with $0 / $ARGUMENTS filled, the !`cmd` output, @file attached.
    send(term, "/review src/app.ts quickly");
    await term.waitFor("reviewed");
    const review = lastUserTexts(fake.requests[0]!);
    expect(review).toContain("<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>src/app.ts quickly</command-args>");
    const reviewText = review.join("\n");
    expect(reviewText).toContain("Review src/app.ts carefully (all: src/app.ts quickly).");
    expect(reviewText).toContain("Branch note: BANG-OUTPUT");
    // Attached once, by the command's expansion (the terminal's own @path attachment looks only at the typed line).
    expect(reviewText.split("HOUSE-STYLE: tabs.").length - 1).toBe(1);
    expect(reviewText).not.toContain("/review src/app.ts quickly");

    // A command by its folder name (`frontend:lint`, contracts §6.3), a plugin command, a skill.
    send(term, "/frontend:lint");
    await term.waitFor("linted");
    expect(userText(fake.requests[1]!)).toContain("LINT-BODY");
    send(term, "/myplug:hello Ada");
    await term.waitFor("greeted");
    expect(userText(fake.requests[2]!)).toContain(`PLUGIN-HELLO to Ada from ${plugin}`);
    send(term, "/deploy prod");
    await term.waitFor("deployed");
    const deploy = userText(fake.requests[3]!);
    expect(deploy).toContain(`Base directory for this skill: ${join(cwd, ".claude/skills/deploy")}`);
    expect(deploy).toContain("DEPLOY-BODY with prod.");
    expect(fake.unexpected).toBe(0);

    send(term, "/exit");
    expect(await term.waitExit()).toBe(0);
    const lines = transcriptLines(env);
    // The transcript holds the expansion as `-p` writes it, so the session resumes with it.
    expect(JSON.stringify(lines)).toContain("<command-name>/myplug:hello</command-name>");
    fake.push(say("still here"));
    const r = await runYoke(["-p", "--resume", resumeId(term.history())!, "what did I run?"], { env, cwd });
    expect(r.stdout.trim()).toBe("still here");
    expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain("DEPLOY-BODY with prod.");
  }, 90_000);

  test("a command whose !`cmd` the rules refuse: a line naming the file and command, no model call, nothing run; the session goes on", async () => {
    const { cwd } = project();
    const { fake, term } = await session([say("after")], { cwd, env: TRUST_WORKSPACE });
    send(term, "/danger");
    const screen = await term.waitFor("touch pwned.txt");
    expect(screen.replace(/\s+/g, " ")).toContain(".claude/commands/danger.md");
    expect(fake.requests).toHaveLength(0);
    expect(existsSync(join(cwd, "pwned.txt"))).toBe(false);
    send(term, "hello");
    await term.waitFor("after");
    expect(fake.unexpected).toBe(0);
  }, 60_000);

  test("an untrusted checkout's command grants nothing at the terminal either: its !`cmd` is refused", async () => {
    const { cwd } = project();
    writeTree(cwd, { ".claude/commands/sneaky.md": "---\nallowed-tools: Bash(touch:*)\n---\n!`touch pwned.txt`\n" });
    const { fake, term } = await session([], { cwd });
    send(term, "/sneaky");
    await term.waitFor("touch pwned.txt");
    expect(fake.requests).toHaveLength(0);
    expect(existsSync(join(cwd, "pwned.txt"))).toBe(false);
  }, 60_000);

  test("a misspelt command is named with the nearest custom one; --disable-slash-commands sends /review to the model as typed", async () => {
    const { cwd } = project();
    const a = await session([], { cwd, env: TRUST_WORKSPACE });
    send(a.term, "/reviw x");
    expect(await a.term.waitFor("Unknown command /reviw.")).toContain("Did you mean /review?");
    expect(a.fake.requests).toHaveLength(0);

    const b = await session([say("plain")], { cwd, env: TRUST_WORKSPACE, argv: ["--disable-slash-commands"] });
    send(b.term, "/review src/app.ts");
    await b.term.waitFor("plain");
    const text = userText(b.fake.requests[0]!);
    expect(text).toContain("/review src/app.ts");
    expect(text).not.toContain("<command-name>");
  }, 60_000);
});

describe("MCP prompts at the terminal (issue 13 point 5)", () => {
  test("/mcp__everything__args-prompt Paris Texas sends the server's prompt; the menu lists the server's prompts", async () => {
    const cwd = tempDir("yoke-tui-mcp-");
    writeTree(cwd, {
      ".mcp.json": JSON.stringify({ mcpServers: { everything: everything() } }),
      ".claude/settings.local.json": JSON.stringify({ enabledMcpjsonServers: ["everything"] }),
    });
    const { fake, term } = await session([say("sunny")], { cwd, env: TRUST_WORKSPACE });
    // The server connects behind the prompt: the menu is read each time it opens, so its prompts appear once it is up.
    const deadline = Date.now() + 30_000;
    for (;;) {
      term.type("/mcp__everything__a");
      const s = await term.waitFor("/mcp__everything__a", { where: "screen" });
      term.keys("C-c");
      if (s.includes("mcp__everything__args-prompt")) break;
      if (Date.now() > deadline) throw new Error(`the MCP prompt never reached the menu:\n${term.screen()}`);
      await Bun.sleep(200);
    }
    send(term, "/mcp__everything__args-prompt Paris Texas");
    await term.waitFor("sunny");
    const text = userText(fake.requests[0]!);
    expect(text).toContain("What's weather in Paris, Texas?");
    expect(text).not.toContain("/mcp__everything__args-prompt");
  }, 90_000);
});
