// Issue 14 review point 2: the UserPromptExpansion hook (contracts §1.1, §1.4, §1.6) in the compiled binary against
// the fake API. Payload keys, wording of results and context are as Claude Code 2.1.332 printed them, observed side
// by side with the same project and hook scripts.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { yokeBin } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { hook, project, requestText, runWith, say, script } from "./hooks-helpers.ts";
import { everything } from "./mcp-helpers.ts";

setDefaultTimeout(60_000);
beforeAll(() => void yokeBin());

const payloads = (file: string): any[] => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);
const TREE = {
  ".claude/commands/greet.md": "---\ndescription: greet\n---\nSay hello to $ARGUMENTS please.\n",
  ".claude/commands/other.md": "OTHER-BODY\n",
  ".claude/skills/sk/SKILL.md": "---\nname: sk\ndescription: a skill\n---\nSkill body for $ARGUMENTS.\n",
};

/** A project whose UserPromptExpansion (and UserPromptSubmit) hook logs its stdin and then runs `then`. */
function expansionProject(then = "true", matcher?: string, more: Record<string, unknown> = {}) {
  const cwd = project();
  const log = join(cwd, "hook.log");
  const rec = script(cwd, "h.sh", `in=$(cat); echo "$in" >> ${log}\nif echo "$in" | grep -q '"hook_event_name":"UserPromptExpansion"'; then\n${then}\nfi`);
  writeTree(cwd, { ...TREE, ".claude/settings.json": JSON.stringify({ hooks: { ...hook("UserPromptExpansion", rec, matcher), ...hook("UserPromptSubmit", rec) }, ...more }) });
  return { cwd, log, rec };
}

describe("UserPromptExpansion fires for a user's /command (contracts §1.1)", () => {
  test("payload: Claude Code's keys in its order; UserPromptSubmit first, with the prompt as typed; one prompt_id", async () => {
    const { cwd, log } = expansionProject();
    const r = await runWith(cwd, [say("hi")], ["--output-format", "json"], { prompt: "/greet world  wide" });
    expect(r.code).toBe(0);
    const seen = payloads(log);
    expect(seen.map((p) => p.hook_event_name)).toEqual(["UserPromptSubmit", "UserPromptExpansion"]);
    const [submit, exp] = seen;
    expect(submit.prompt).toBe("/greet world  wide");
    expect(Object.keys(exp)).toEqual([
      "session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "hook_event_name",
      "expansion_type", "command_name", "command_args", "command_source", "prompt",
    ]);
    expect(exp).toMatchObject({ expansion_type: "slash_command", command_name: "greet", command_args: "world  wide", command_source: "projectSettings", prompt: "/greet world  wide" });
    expect(exp.prompt_id).toBe(submit.prompt_id);
    // The expansion still reaches the model.
    expect(requestText(r.requests[0]!)).toContain("Say hello to world  wide please.");
  });

  test("command_source names the level: userSettings for ~/.claude/commands, plugin for a plugin's command", async () => {
    const { cwd, log } = expansionProject();
    const home = tempDir("yoke-home-");
    writeTree(home, { ".claude/commands/ucmd.md": "user cmd $ARGUMENTS\n" });
    const plug = tempDir("yoke-plug-");
    writeTree(plug, { ".claude-plugin/plugin.json": JSON.stringify({ name: "plug" }), "commands/pc.md": "plugin cmd $ARGUMENTS\n" });
    await runWith(cwd, [say("a")], [], { prompt: "/ucmd a b", env: { CLAUDE_CONFIG_DIR: join(home, ".claude") } });
    await runWith(cwd, [say("b")], ["--plugin-dir", plug], { prompt: "/plug:pc x" });
    const exp = payloads(log).filter((p) => p.hook_event_name === "UserPromptExpansion");
    expect(exp.map((p) => [p.command_name, p.command_source])).toEqual([["ucmd", "userSettings"], ["plug:pc", "plugin"]]);
  });

  test("not fired for a plain prompt, an unknown /word, or a skill the model loads through the Skill tool", async () => {
    const { cwd, log } = expansionProject();
    await runWith(cwd, [say("a")], [], { prompt: "hello there" });
    await runWith(cwd, [say("b")], [], { prompt: "/nosuchcommand x" });
    await runWith(cwd, [{ content: [{ type: "tool_use", name: "Skill", input: { skill: "sk", args: "z" } }] }, say("c")], [], { prompt: "use it" });
    expect(payloads(log).filter((p) => p.hook_event_name === "UserPromptExpansion")).toEqual([]);
  });

  test("the matcher is tested against the command name: a hook for `other` does not see /greet", async () => {
    const { cwd, log } = expansionProject("true", "other");
    await runWith(cwd, [say("a")], [], { prompt: "/greet x" });
    await runWith(cwd, [say("b")], [], { prompt: "/other" });
    expect(payloads(log).filter((p) => p.hook_event_name === "UserPromptExpansion").map((p) => p.command_name)).toEqual(["other"]);
  });
});

describe("what a UserPromptExpansion answer does (contracts §1.5, §1.6)", () => {
  test("exit 2 blocks the expansion: no model request, the reason and the typed prompt are the result", async () => {
    const { cwd, rec } = expansionProject(`echo "nope, blocked" >&2; exit 2`);
    const r = await runWith(cwd, [say("never")], ["--output-format", "json"], { prompt: "/greet world" });
    expect(r.code).toBe(0);
    expect(r.requests).toHaveLength(0);
    expect(r.json.is_error).toBe(false);
    expect(r.json.num_turns).toBe(0);
    // Byte for byte as 2.1.332 printed it (the hook's stderr keeps its newline).
    expect(r.json.result).toBe(`UserPromptExpansion operation blocked by hook:\n[${rec}]: nope, blocked\n\n\nOriginal prompt: /greet world`);
  });

  test("decision:block with suppressOriginalPrompt leaves the prompt out; without a reason it says Blocked by hook", async () => {
    const a = expansionProject(`echo '{"decision":"block","reason":"json says no","hookSpecificOutput":{"hookEventName":"UserPromptExpansion","suppressOriginalPrompt":true}}'`);
    const ra = await runWith(a.cwd, [say("never")], ["--output-format", "json"], { prompt: "/greet world" });
    expect(ra.json.result).toBe("UserPromptExpansion operation blocked by hook:\njson says no");
    const b = expansionProject(`echo '{"decision":"block"}'`);
    const rb = await runWith(b.cwd, [say("never")], ["--output-format", "json"], { prompt: "/greet world" });
    expect(rb.json.result).toBe("UserPromptExpansion operation blocked by hook:\nBlocked by hook\n\nOriginal prompt: /greet world");
    expect(ra.requests.length + rb.requests.length).toBe(0);
  });

  test("continue:false stops the turn with its stopReason", async () => {
    const { cwd } = expansionProject(`echo '{"continue":false,"stopReason":"halt here"}'`);
    const r = await runWith(cwd, [say("never")], ["--output-format", "json"], { prompt: "/greet world" });
    expect(r.requests).toHaveLength(0);
    expect(r.json.result).toBe("Operation stopped by hook: halt here");
  });

  test("additionalContext and plain stdout reach the model before the command, worded as Claude Code words them", async () => {
    const a = expansionProject(`echo '{"hookSpecificOutput":{"hookEventName":"UserPromptExpansion","additionalContext":"CTX-FROM-JSON"}}'`);
    const ra = await runWith(a.cwd, [say("hi")], [], { prompt: "/greet world" });
    const b = expansionProject(`echo PLAIN-STDOUT-CTX`);
    const rb = await runWith(b.cwd, [say("hi")], [], { prompt: "/greet world" });
    const blocks = (r: typeof ra) => r.requests[0]!.body.messages[0].content.map((x: any) => x.text) as string[];
    const ia = blocks(ra).indexOf("<system-reminder>\nUserPromptExpansion hook additional context: CTX-FROM-JSON\n</system-reminder>");
    const ib = blocks(rb).indexOf("<system-reminder>\nUserPromptExpansion hook success: PLAIN-STDOUT-CTX\n</system-reminder>");
    expect(ia).toBeGreaterThanOrEqual(0);
    expect(ib).toBeGreaterThanOrEqual(0);
    // Before the command's marker and body.
    expect(blocks(ra).findIndex((t) => t.startsWith("<command-message>greet"))).toBeGreaterThan(ia);
  });

  test("a hook that fails (exit 1) does not block: the command expands and the model answers", async () => {
    const { cwd } = expansionProject(`echo oops >&2; exit 1`);
    const r = await runWith(cwd, [say("answered")], ["--output-format", "json"], { prompt: "/greet world" });
    expect(r.json.result).toBe("answered");
    expect(requestText(r.requests[0]!)).toContain("Say hello to world please.");
  });

  test("yoke hooks run UserPromptExpansion sends a sample payload through the hook without a model", async () => {
    const { cwd, log } = expansionProject(`echo "dry block" >&2; exit 2`);
    const { runYoke, isolatedEnv, TRUST_WORKSPACE } = await import("../helpers/binary.ts");
    const r = await runYoke(["hooks", "run", "UserPromptExpansion"], { cwd, env: isolatedEnv({ ...TRUST_WORKSPACE }) });
    expect(r.stdout + r.stderr).toContain("dry block");
    expect(payloads(log)[0]).toMatchObject({ hook_event_name: "UserPromptExpansion", expansion_type: "slash_command" });
  });
});

describe("UserPromptExpansion for an MCP server's prompt (expansion_type mcp_prompt, observed in 2.1.332)", () => {
  const mcpHookProject = (then: string) => {
    const cwd = project();
    const log = join(cwd, "hook.log");
    const rec = script(cwd, "h.sh", `in=$(cat); echo "$in" >> ${log}\nif echo "$in" | grep -q '"hook_event_name":"UserPromptExpansion"'; then\n${then}\nfi`);
    writeTree(cwd, {
      ".mcp.json": JSON.stringify({ mcpServers: { everything: everything() } }),
      ".claude/settings.local.json": JSON.stringify({ enabledMcpjsonServers: ["everything"], hooks: { ...hook("UserPromptExpansion", rec), ...hook("UserPromptSubmit", rec) } }),
    });
    return { cwd, log };
  };

  test("fires after UserPromptSubmit with command_source mcp; the server's prompt still reaches the model", async () => {
    const { cwd, log } = mcpHookProject("true");
    const r = await runWith(cwd, [say("ok")], [], { prompt: "/mcp__everything__args-prompt Paris Texas" });
    expect(r.code).toBe(0);
    const seen = payloads(log);
    expect(seen.map((p) => p.hook_event_name)).toEqual(["UserPromptSubmit", "UserPromptExpansion"]);
    expect(seen[1]).toMatchObject({ expansion_type: "mcp_prompt", command_name: "mcp__everything__args-prompt", command_args: "Paris Texas", command_source: "mcp", prompt: "/mcp__everything__args-prompt Paris Texas" });
    expect(requestText(r.requests[0]!)).toContain("What's weather in Paris, Texas?");
  });

  test("exit 2 blocks it before the server is asked: no model request, Claude Code's wording", async () => {
    const { cwd } = mcpHookProject(`echo nope >&2; exit 2`);
    const r = await runWith(cwd, [say("never")], ["--output-format", "json"], { prompt: "/mcp__everything__simple-prompt" });
    expect(r.requests).toHaveLength(0);
    expect(r.json.result).toMatch(/^UserPromptExpansion operation blocked by hook:\n\[.*h\.sh\]: nope\n\n\nOriginal prompt: \/mcp__everything__simple-prompt$/);
  });
});
