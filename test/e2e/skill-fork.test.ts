// Issue 14 review point 3: skills with `context: fork` (contracts §6.2) run in a subagent, in the compiled binary
// against the fake API. Result wording and the order of events as Claude Code 2.1.332 showed them side by side.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { yokeBin } from "../helpers/binary.ts";
import { writeTree } from "../helpers/tmp.ts";
import { hook, project, requestText, runWith, say, script } from "./hooks-helpers.ts";

setDefaultTimeout(60_000);
beforeAll(() => void yokeBin());

const payloads = (file: string): any[] => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);
const toolNames = (req: any): string[] => (req.body.tools ?? []).map((t: any) => t.name);

function forkProject(extra: Record<string, string> = {}) {
  const cwd = project();
  const log = join(cwd, "hook.log");
  const rec = script(cwd, "rec.sh", `cat >> ${log}; echo >> ${log}`);
  const events = ["UserPromptExpansion", "UserPromptSubmit", "SubagentStart", "SubagentStop"];
  writeTree(cwd, {
    ".claude/settings.json": JSON.stringify({ hooks: Object.assign({}, ...events.map((e) => hook(e, rec))) }),
    ".claude/skills/forky/SKILL.md": "---\nname: forky\ndescription: a forked skill\ncontext: fork\n---\nForked body: research $ARGUMENTS and report.\n",
    ".claude/skills/scout/SKILL.md": "---\ndescription: read-only scouting\ncontext: fork\nagent: Explore\nmodel: haiku\n---\nScout $ARGUMENTS.\n",
    ".claude/skills/toucher/SKILL.md": "---\ndescription: touches a file\ncontext: fork\nallowed-tools: Bash(touch:*)\n---\nTouch the marker file.\n",
    ".claude/skills/later/SKILL.md": "---\ndescription: may go to the background\ncontext: fork\nbackground: true\n---\nLater body: $ARGUMENTS.\n",
    ".claude/skills/lost/SKILL.md": "---\ndescription: names no real agent\ncontext: fork\nagent: no-such-agent\n---\nLost.\n",
    "CLAUDE.md": "HOUSE-RULES-FOR-ALL\n",
    ...extra,
  });
  return { cwd, log };
}

describe("a user's /skill with context: fork", () => {
  test("runs the expanded body as a general-purpose subagent's prompt; its answer is the result; the main model is not asked", async () => {
    const { cwd, log } = forkProject();
    const r = await runWith(cwd, [say("FORK-RESULT-TEXT"), say("(main model: unexpected)")], ["--output-format", "json"], { prompt: "/forky topic-x" });
    expect(r.code).toBe(0);
    expect(r.requests).toHaveLength(1);
    const text = requestText(r.requests[0]!);
    expect(text).toContain(`Base directory for this skill: ${join(cwd, ".claude/skills/forky")}`);
    expect(text).toContain("Forked body: research topic-x and report.");
    // No conversation history, but the instruction files (the documented "also loads CLAUDE.md").
    expect(text).toContain("HOUSE-RULES-FOR-ALL");
    expect(toolNames(r.requests[0])).not.toContain("Agent");
    expect(r.json.result).toBe("FORK-RESULT-TEXT");
    expect(r.json.is_error).toBe(false);
    // Observed in 2.1.332: UserPromptExpansion, then UserPromptSubmit, then the subagent's Start and Stop.
    const seen = payloads(log);
    expect(seen.map((p) => p.hook_event_name)).toEqual(["UserPromptExpansion", "UserPromptSubmit", "SubagentStart", "SubagentStop"]);
    expect(seen[2].agent_type).toBe("general-purpose");
    expect(seen[3].last_assistant_message).toBe("FORK-RESULT-TEXT");
  });

  test("`agent: Explore` picks the agent type (read-only tools) and `model:` the subagent's model", async () => {
    const { cwd, log } = forkProject();
    const r = await runWith(cwd, [say("scouted")], ["--output-format", "json"], { prompt: "/scout the api" });
    expect(r.json.result).toBe("scouted");
    expect(payloads(log).find((p) => p.hook_event_name === "SubagentStart").agent_type).toBe("Explore");
    expect(toolNames(r.requests[0])).not.toContain("Write");
    expect(r.requests[0]!.body.model).toMatch(/haiku/);
  });

  test("its allowed-tools apply inside the fork: a Bash(touch:*) call runs there without asking", async () => {
    const { cwd } = forkProject();
    const r = await runWith(cwd, [{ content: [{ type: "tool_use", name: "Bash", input: { command: "touch marker.txt" } }] }, say("touched")], ["--output-format", "json"], {
      prompt: "/toucher",
    });
    expect(r.json.result).toBe("touched");
    expect(existsSync(join(cwd, "marker.txt"))).toBe(true);
    expect(toolResultsOf(r.requests[1]!)[0]!.is_error).toBe(false);
  });

  test("an agent type that does not exist: an error result naming it, exit 1, no request", async () => {
    const { cwd } = forkProject();
    const r = await runWith(cwd, [say("never")], ["--output-format", "json"], { prompt: "/lost" });
    expect(r.code).toBe(1);
    expect(r.requests).toHaveLength(0);
    expect(r.json.is_error).toBe(true);
    const said = JSON.stringify(r.json.errors);
    expect(said).toContain("no-such-agent");
    expect(said).toContain(join(cwd, ".claude/skills/lost/SKILL.md"));
  });

  test("a UserPromptExpansion block stops the fork before any subagent starts", async () => {
    const { cwd, log } = forkProject();
    const blocker = script(cwd, "block.sh", `cat >/dev/null; echo "not now" >&2; exit 2`);
    writeTree(cwd, { ".claude/settings.json": JSON.stringify({ hooks: { ...hook("UserPromptExpansion", blocker), ...hook("SubagentStart", script(cwd, "r2.sh", `cat >> ${log}`)) } }) });
    const r = await runWith(cwd, [say("never")], ["--output-format", "json"], { prompt: "/forky x" });
    expect(r.requests).toHaveLength(0);
    expect(r.json.result).toContain("UserPromptExpansion operation blocked by hook:");
    expect(payloads(log)).toEqual([]);
  });
});

describe("the model loads a context: fork skill through the Skill tool", () => {
  test("the subagent runs and the tool result is Claude Code's forked-execution text; the main model goes on", async () => {
    const { cwd, log } = forkProject();
    const r = await runWith(
      cwd,
      [{ content: [{ type: "tool_use", name: "Skill", input: { skill: "forky", args: "zeta" } }] }, say("FORK-RESULT-TEXT"), say("main done")],
      ["--output-format", "json"],
      { prompt: "research it" },
    );
    expect(r.json.result).toBe("main done");
    expect(r.requests).toHaveLength(3);
    expect(requestText(r.requests[1]!)).toContain("Forked body: research zeta and report.");
    expect(requestText(r.requests[1]!)).not.toContain("research it");
    const [res] = toolResultsOf(r.requests[2]!);
    expect(res).toMatchObject({ is_error: false, text: 'Skill "forky" completed (forked execution).\n\nResult:\nFORK-RESULT-TEXT' });
    // Not a user's expansion: UserPromptExpansion does not fire.
    expect(payloads(log).map((p) => p.hook_event_name)).toEqual(["UserPromptSubmit", "SubagentStart", "SubagentStop"]);
  });
});

describe("`background:` in a forked skill's frontmatter", () => {
  // Observed in 2.1.332 (its Skill tool code): a forked skill may be moved to the background only behind a
  // server-side switch that is off by default; with it off, `background: true` still runs in the foreground, and the
  // tool result carries no `background` field. yoke reads the field and does the same.
  test("background: true still runs the fork in the foreground: the answer is the tool result of the same turn", async () => {
    const { cwd } = forkProject();
    const r = await runWith(
      cwd,
      [{ content: [{ type: "tool_use", name: "Skill", input: { skill: "later", args: "eta" } }] }, say("LATER-RESULT"), say("main done")],
      ["--output-format", "stream-json", "--verbose"],
      { prompt: "go" },
    );
    expect(r.code).toBe(0);
    expect(requestText(r.requests[1]!)).toContain("Later body: eta.");
    const [res] = toolResultsOf(r.requests[2]!);
    expect(res).toMatchObject({ is_error: false, text: 'Skill "later" completed (forked execution).\n\nResult:\nLATER-RESULT' });
    const meta = r.lines!.find((l) => l.type === "user" && l.tool_use_result?.commandName === "later")?.tool_use_result;
    expect(meta).toMatchObject({ status: "forked", success: true });
    expect(meta).not.toHaveProperty("background");
  });
});
