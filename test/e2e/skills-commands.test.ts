// Issue 14 points 1–2 end to end: skills and custom slash commands in the compiled binary against the fake API.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf, type LoggedRequest } from "../helpers/fake-anthropic.ts";
import { yokeBin } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { bashCall, project, requestText, runWith, say, systemText } from "./hooks-helpers.ts";

// Each test runs the binary (some several times); on a loaded machine one run can take seconds.
setDefaultTimeout(60_000);

beforeAll(() => {
  yokeBin();
});

const skillCall = (skill: string, args?: string) => ({ content: [{ type: "tool_use" as const, name: "Skill", input: { skill, ...(args ? { args } : {}) } }] });
/** The text blocks of the first user message of a request. */
const firstUserBlocks = (req: LoggedRequest): string[] => {
  const m = req.body.messages[0];
  return typeof m.content === "string" ? [m.content] : m.content.filter((b: any) => b.type === "text").map((b: any) => b.text);
};

const TREE = {
  ".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploys the app to staging\nallowed-tools: Bash(touch:*)\n---\nDEPLOY-BODY: run the script in ${CLAUDE_SKILL_DIR}/run.sh with $ARGUMENTS.\n",
  ".claude/skills/deploy/run.sh": "echo deploying\n",
  ".claude/skills/secret/SKILL.md": "---\ndescription: Only for people\ndisable-model-invocation: true\n---\nSECRET-BODY\n",
  ".claude/commands/review.md":
    "---\ndescription: Reviews one file\nargument-hint: <file>\nallowed-tools: Bash(echo:*)\n---\nReview $0 carefully (all: $ARGUMENTS).\nBranch note: !`echo BANG-OUTPUT`\nSee @notes.md for the house style.\n",
  ".claude/commands/frontend/lint.md": "Lint the frontend\n\nLINT-BODY\n",
  "notes.md": "HOUSE-STYLE: tabs.\n",
  "src/app.ts": "export const x = 1;\n",
};

describe("custom slash commands as the -p prompt (issue 14 point 2)", () => {
  test("/review expands: marker, $0 and $ARGUMENTS, a !`cmd` allowed by its allowed-tools, an @file attached", async () => {
    const cwd = project();
    writeTree(cwd, TREE);
    const r = await runWith(cwd, [say("reviewed")], ["--output-format", "json"], { prompt: "/review src/app.ts quickly" });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const blocks = firstUserBlocks(r.requests[0]!);
    // contracts §6.2: the marker block, then the body.
    expect(blocks[0]).toBe("<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>src/app.ts quickly</command-args>");
    expect(blocks[1]).toContain("Review src/app.ts carefully (all: src/app.ts quickly).");
    expect(blocks[1]).toContain("Branch note: BANG-OUTPUT");
    expect(blocks.join("\n")).toContain("HOUSE-STYLE: tabs.");
    expect(r.json.result).toBe("reviewed");
  });

  test("a !`cmd` the rules do not allow stops the command: exit 1, the file and command named, no model call", async () => {
    const cwd = project();
    writeTree(cwd, { ".claude/commands/danger.md": "---\ndescription: x\n---\nOut: !`touch pwned.txt`\n" });
    const r = await runWith(cwd, [say("never")], ["--output-format", "json"], { prompt: "/danger" });
    expect(r.code).toBe(1);
    expect(r.requests).toHaveLength(0);
    expect(r.json.is_error).toBe(true);
    const said = JSON.stringify(r.json.errors);
    expect(said).toContain(join(cwd, ".claude/commands/danger.md"));
    expect(said).toContain("touch pwned.txt");
    expect(existsSync(join(cwd, "pwned.txt"))).toBe(false);
  });

  test("@file attaches only what Read may read without asking: a deny rule or a file outside the project is not attached", async () => {
    const cwd = project({ permissions: { deny: ["Read(./secret.txt)"] } });
    const outside = join(tempDir("yoke-outside-"), "private.txt");
    writeTree(cwd, { "secret.txt": "TOP-SECRET\n", "ok.txt": "FINE-TEXT\n", ".claude/commands/peek.md": `Look at @secret.txt and @ok.txt and @${outside}\n` });
    writeTree(join(outside, ".."), { "private.txt": "PRIVATE-TEXT\n" });
    const r = await runWith(cwd, [say("ok")], [], { prompt: "/peek" });
    const text = firstUserBlocks(r.requests[0]!).join("\n");
    expect(text).toContain("FINE-TEXT");
    expect(text).not.toContain("TOP-SECRET");
    expect(text).not.toContain("PRIVATE-TEXT");
    expect(text).toContain("(@secret.txt was not attached");
  });

  test("an untrusted checkout's command grants nothing: its !`cmd` is refused", async () => {
    const cwd = project();
    writeTree(cwd, { ".claude/commands/sneaky.md": "---\nallowed-tools: Bash(touch:*)\n---\n!`touch pwned.txt`\n" });
    const r = await runWith(cwd, [say("never")], ["--output-format", "json"], { prompt: "/sneaky", env: { YOKE_TRUST_WORKSPACE: undefined } });
    expect(r.code).toBe(1);
    expect(existsSync(join(cwd, "pwned.txt"))).toBe(false);
  });

  test("sub-folder commands answer to their name and to folder:name; unknown /words and paths go to the model as typed", async () => {
    const cwd = project();
    writeTree(cwd, TREE);
    const a = await runWith(cwd, [say("ok")], [], { prompt: "/frontend:lint" });
    expect(firstUserBlocks(a.requests[0]!).join("\n")).toContain("LINT-BODY");
    const b = await runWith(cwd, [say("ok")], [], { prompt: "/lint" });
    expect(firstUserBlocks(b.requests[0]!).join("\n")).toContain("LINT-BODY");
    const c = await runWith(cwd, [say("ok")], [], { prompt: "/usr/bin/env is odd" });
    expect(requestText(c.requests[0]!)).toContain("/usr/bin/env is odd");
    const d = await runWith(cwd, [say("ok")], [], { prompt: "/nosuch thing" });
    expect(requestText(d.requests[0]!)).toContain("/nosuch thing");
  });

  test("stream-json input: a user message that is a slash command expands; init lists commands and skills", async () => {
    const cwd = project();
    writeTree(cwd, TREE);
    const msg = { type: "user", message: { role: "user", content: "/review src/app.ts" } };
    const r = await runWith(cwd, [say("done")], ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"], {
      stdin: `${JSON.stringify(msg)}\n`,
      prompt: undefined,
    });
    expect(r.code).toBe(0);
    const init = r.lines!.find((l) => l.subtype === "init");
    expect(init.slash_commands).toEqual(expect.arrayContaining(["compact", "review", "lint", "deploy", "secret"]));
    expect(init.skills).toEqual(expect.arrayContaining(["deploy", "secret"]));
    expect(firstUserBlocks(r.requests[0]!).join("\n")).toContain("Review src/app.ts carefully");
  });
});

describe("skills through the Skill tool (issue 14 point 1)", () => {
  test("names and descriptions are listed, bodies are not; Skill loads the body with its base directory; allowed-tools apply while it runs", async () => {
    const cwd = project();
    writeTree(cwd, TREE);
    const r = await runWith(cwd, [skillCall("deploy", "v2"), bashCall("touch deployed.txt"), say("deployed")], ["--output-format", "json"]);
    expect(r.stderr).toBe("");
    const sys = systemText(r.requests[0]!);
    expect(sys).toContain("- deploy: Deploys the app to staging");
    expect(sys).toContain("- review: Reviews one file");
    expect(sys).not.toContain("DEPLOY-BODY");
    expect(sys).not.toContain("Only for people"); // disable-model-invocation: not listed
    expect(r.requests[0]!.body.tools.map((t: any) => t.name)).toContain("Skill");
    const res = toolResultsOf(r.requests[1]!)[0]!;
    expect(res.is_error).toBe(false);
    expect(res.text).toContain(`Base directory for this skill: ${join(cwd, ".claude/skills/deploy")}`);
    expect(res.text).toContain(`DEPLOY-BODY: run the script in ${join(cwd, ".claude/skills/deploy")}/run.sh with v2.`);
    // `touch` is no read-only command: without the skill's allowed-tools a -p run would deny it.
    expect(toolResultsOf(r.requests[2]!)[0]!.is_error).toBe(false);
    expect(existsSync(join(cwd, "deployed.txt"))).toBe(true);
  });

  test("the grant ends with the turn's prompt: without the skill, the same Bash call is denied", async () => {
    const cwd = project();
    writeTree(cwd, TREE);
    const r = await runWith(cwd, [bashCall("touch deployed.txt"), say("no")], ["--output-format", "json"]);
    expect(toolResultsOf(r.requests[1]!)[0]!.is_error).toBe(true);
    expect(existsSync(join(cwd, "deployed.txt"))).toBe(false);
  });

  test("a disable-model-invocation skill and an unknown name come back as errors the model can act on", async () => {
    const cwd = project();
    writeTree(cwd, TREE);
    const r = await runWith(cwd, [skillCall("secret"), skillCall("nope"), say("ok")], ["--output-format", "json"]);
    expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ is_error: true });
    expect(toolResultsOf(r.requests[1]!)[0]!.text).toContain("can only be run by the user");
    expect(toolResultsOf(r.requests[2]!)[0]!.text).toContain('Unknown skill "nope"');
    // ...but the user can run it.
    const u = await runWith(cwd, [say("ok")], [], { prompt: "/secret" });
    expect(firstUserBlocks(u.requests[0]!).join("\n")).toContain("SECRET-BODY");
  });

  test("broken frontmatter and a colliding command are reported once each, naming the file; the rest loads", async () => {
    const cwd = project();
    writeTree(cwd, {
      ...TREE,
      ".claude/skills/broken/SKILL.md": "---\n- a list, not fields\nb: [\n---\nbody\n",
      ".claude/commands/deploy.md": "---\ndescription: a skill of this name wins, quietly (contracts §6.2)\n---\nX\n",
      ".claude/commands/tools/review.md": "---\ndescription: a second /review in the same level\n---\nX\n",
    });
    const r = await runWith(cwd, [say("ok")], ["--output-format", "json"]);
    expect(r.code).toBe(0);
    const lines = r.stderr.trim().split("\n");
    expect(lines.filter((l) => l.includes(join(cwd, ".claude/skills/broken/SKILL.md")))).toHaveLength(1);
    expect(lines.filter((l) => l.includes(join(cwd, ".claude/commands/tools/review.md")))).toHaveLength(1);
    expect(r.stderr).not.toContain("deploy.md");
    expect(systemText(r.requests[0]!)).toContain("- deploy: Deploys the app to staging");
    expect(systemText(r.requests[0]!)).toContain("- review:");
  });

  test("~/.claude/skills and ~/.claude/commands load; on a name clash the personal skill beats the project one", async () => {
    const cwd = project();
    writeTree(cwd, TREE);
    const home = tempDir("yoke-home-");
    writeTree(home, {
      ".claude/skills/deploy/SKILL.md": "---\ndescription: PERSONAL deploy\n---\nPERSONAL-BODY\n",
      ".claude/commands/standup.md": "---\ndescription: Writes my standup\n---\nSTANDUP-BODY\n",
    });
    const r = await runWith(cwd, [say("ok")], [], { env: { HOME: home }, prompt: "/standup" });
    expect(r.stderr).toBe("");
    expect(systemText(r.requests[0]!)).toContain("- deploy: PERSONAL deploy");
    expect(systemText(r.requests[0]!)).toContain("- standup: Writes my standup");
    expect(firstUserBlocks(r.requests[0]!).join("\n")).toContain("STANDUP-BODY");
  });

  test("a skill used in the session comes back after /compact (seed 000 step 5)", async () => {
    const cwd = project();
    writeTree(cwd, TREE);
    const user = (content: string) => JSON.stringify({ type: "user", message: { role: "user", content } });
    const r = await runWith(
      cwd,
      [skillCall("deploy", "v3"), say("deployed"), say("fine"), say("<summary>SUMMARY-TEXT</summary>"), say("after")],
      ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"],
      { stdin: `${user("deploy it")}\n${user("and?")}\n${user("/compact")}\n${user("what now")}\n`, prompt: undefined },
    );
    expect(r.code).toBe(0);
    const last = r.requests[r.requests.length - 1]!;
    const text = requestText(last);
    expect(text).toContain("SUMMARY-TEXT");
    expect(text).toContain("### Skill: deploy");
    expect(text).toContain("DEPLOY-BODY: run the script in");
  });

  test("a skill's frontmatter hooks join the session once it is used", async () => {
    const cwd = project();
    writeTree(cwd, {
      ".claude/skills/guard/SKILL.md":
        "---\ndescription: Guards the shell\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: \"echo SKILL-HOOK-BLOCK >&2; exit 2\"\n---\nGUARD-BODY\n",
    });
    const r = await runWith(cwd, [bashCall("echo before"), skillCall("guard"), bashCall("echo after"), say("ok")], ["--output-format", "json", "--allowedTools", "Bash"]);
    expect(r.code).toBe(0);
    expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ is_error: false, text: "before" });
    expect(toolResultsOf(r.requests[3]!)[0]!.is_error).toBe(true);
    expect(toolResultsOf(r.requests[3]!)[0]!.text).toContain("SKILL-HOOK-BLOCK");
  });
});

describe("`model:` in a skill's or command's frontmatter (issue 14 points 1–2)", () => {
  const MODEL_TREE = {
    ".claude/commands/quick.md": "---\ndescription: A quick answer\nmodel: haiku\n---\nQUICK-BODY $ARGUMENTS\n",
    ".claude/skills/cheap/SKILL.md": "---\ndescription: Cheap lookups\nmodel: haiku\n---\nCHEAP-BODY\n",
    ".claude/skills/plain/SKILL.md": "---\ndescription: No model of its own\n---\nPLAIN-BODY\n",
  };

  test("a user's /command runs its turn on that model; the next prompt is back on the session's", async () => {
    const cwd = project();
    writeTree(cwd, MODEL_TREE);
    const user = (content: string) => JSON.stringify({ type: "user", message: { role: "user", content } });
    const r = await runWith(cwd, [say("quick"), say("normal")], ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--model", "opus"], {
      stdin: `${user("/quick now")}\n${user("and then?")}\n`,
      prompt: undefined,
    });
    expect(r.code).toBe(0);
    expect(r.requests[0]!.body.model).toContain("haiku");
    expect(r.requests[1]!.body.model).toContain("opus");
  });

  test("a skill the model loads through Skill switches the rest of the turn to its model, until the next user message (contracts §6.2)", async () => {
    const cwd = project();
    writeTree(cwd, MODEL_TREE);
    const user = (content: string) => JSON.stringify({ type: "user", message: { role: "user", content } });
    const r = await runWith(
      cwd,
      [skillCall("plain"), skillCall("cheap"), say("looked up"), say("next turn")],
      ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--model", "opus"],
      { stdin: `${user("look it up")}\n${user("again?")}\n`, prompt: undefined },
    );
    expect(r.code).toBe(0);
    const models = r.requests.map((q) => q.body.model as string);
    // A skill without `model:` changes nothing; `cheap` switches the requests after it.
    expect(models[0]).toContain("opus");
    expect(models[1]).toContain("opus");
    expect(models[2]).toContain("haiku");
    // The next user message ends it.
    expect(models[3]).toContain("opus");
    const skillResult = r.lines!.find((l) => l.type === "user" && l.tool_use_result?.commandName === "cheap");
    expect(skillResult?.tool_use_result.model).toContain("haiku");
  });
});

describe("discovery's cache between runs (issue 14 point 7)", () => {
  test("a second start in the same project sees an edited skill, a new command and a removed one; the cache is yoke's own state", async () => {
    const cwd = project();
    const home = tempDir("yoke-home-");
    writeTree(cwd, { ".claude/skills/tidy/SKILL.md": "---\ndescription: Tidies v1\n---\nTIDY\n", ".claude/commands/gone.md": "---\ndescription: Soon gone\n---\nX\n" });
    const old = new Date(Date.now() - 60_000);
    for (const f of [".claude/skills/tidy/SKILL.md", ".claude/commands/gone.md"]) utimesSync(join(cwd, f), old, old);
    const first = await runWith(cwd, [say("ok")], [], { env: { HOME: home } });
    expect(systemText(first.requests[0]!)).toContain("- tidy: Tidies v1");
    // Same size, old mtime put back: only the inode change time tells.
    writeFileSync(join(cwd, ".claude/skills/tidy/SKILL.md"), "---\ndescription: Tidies v2\n---\nTIDY\n");
    utimesSync(join(cwd, ".claude/skills/tidy/SKILL.md"), old, old);
    rmSync(join(cwd, ".claude/commands/gone.md"));
    writeTree(cwd, { ".claude/commands/fresh.md": "---\ndescription: Brand new\n---\nY\n" });
    const second = await runWith(cwd, [say("ok")], [], { env: { HOME: home } });
    const sys = systemText(second.requests[0]!);
    expect(sys).toContain("- tidy: Tidies v2");
    expect(sys).toContain("- fresh: Brand new");
    expect(sys).not.toContain("Soon gone");
    expect(second.stderr).toBe("");
    expect(existsSync(join(home, ".yoke", "projects"))).toBe(true);
  });
});

describe("bad input: a missing referenced file (issue 14)", () => {
  test("an @file that names nothing and a plugin.json command file that is not there: each said once, naming the file; the rest runs", async () => {
    const cwd = project();
    const plug = tempDir("yoke-plug-");
    writeTree(plug, {
      ".claude-plugin/plugin.json": JSON.stringify({ name: "kit", commands: ["./extra/ok.md", "./extra/gone.md"] }),
      "extra/ok.md": "---\ndescription: Works\n---\nKIT-OK-BODY\n",
    });
    writeTree(cwd, { ".claude/commands/cite.md": "---\ndescription: Cites notes\n---\nCITE-BODY, see @docs/nowhere.md twice: @docs/nowhere.md\n" });
    const user = (content: string) => JSON.stringify({ type: "user", message: { role: "user", content } });
    const r = await runWith(cwd, [say("one"), say("two"), say("three")], ["--plugin-dir", plug, "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"], {
      stdin: `${user("/cite")}\n${user("/cite")}\n${user("/kit:ok")}\n`,
      prompt: undefined,
    });
    expect(r.code).toBe(0);
    const lines = r.stderr.trim().split("\n");
    const atFile = lines.filter((l) => l.includes("docs/nowhere.md"));
    expect(atFile).toHaveLength(1);
    expect(atFile[0]).toContain(join(cwd, ".claude/commands/cite.md"));
    const gone = lines.filter((l) => l.includes("gone.md"));
    expect(gone).toHaveLength(1);
    expect(gone[0]).toContain(join(plug, "extra/gone.md"));
    expect(firstUserBlocks(r.requests[0]!).join("\n")).toContain("CITE-BODY");
    expect(requestText(r.requests[2]!)).toContain("KIT-OK-BODY");
  });
});
