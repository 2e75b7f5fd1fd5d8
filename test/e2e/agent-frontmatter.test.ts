// Issue 14 point 4 end to end: agent frontmatter permissionMode and skills, and --agent NAME.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { yokeBin } from "../helpers/binary.ts";
import { writeTree } from "../helpers/tmp.ts";
import { project, requestText, runWith, say, systemText } from "./hooks-helpers.ts";

// Each test runs the binary (some several times); on a loaded machine one run can take seconds.
setDefaultTimeout(60_000);

beforeAll(() => {
  yokeBin();
});

const tool = (name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, name, input }] });
const AGENTS = {
  ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\nmodel: haiku\n---\nREVIEWER-PROMPT: read, never write.\n",
  ".claude/agents/scribe.md": "---\nname: scribe\ndescription: Writes notes\npermissionMode: acceptEdits\nskills: house-style\n---\nSCRIBE-PROMPT\n",
  ".claude/skills/house-style/SKILL.md": "---\ndescription: The house style\n---\nHOUSE-STYLE-BODY: tabs, not spaces.\n",
};

describe("agent frontmatter (contracts §6.4)", () => {
  test("permissionMode: acceptEdits lets the agent write where the headless parent would be denied; skills load before its prompt", async () => {
    const cwd = project();
    writeTree(cwd, AGENTS);
    const file = join(cwd, "notes.md");
    const r = await runWith(
      cwd,
      [tool("Agent", { description: "Write notes", prompt: "write the notes", subagent_type: "scribe" }), tool("Write", { file_path: file, content: "n\n" }), say("written"), say("done")],
      ["--output-format", "json"],
    );
    expect(r.code).toBe(0);
    const sub = r.requests[1]!;
    expect(systemText(sub)).toContain("SCRIBE-PROMPT");
    expect(requestText(sub)).toContain("HOUSE-STYLE-BODY: tabs, not spaces.");
    expect(toolResultsOf(r.requests[2]!)[0]!.is_error).toBe(false);
    expect(existsSync(file)).toBe(true);
  });

  test("without permissionMode the same write is denied in -p (the control)", async () => {
    const cwd = project();
    writeTree(cwd, { ".claude/agents/plain.md": "---\nname: plain\ndescription: Plain\n---\nPLAIN\n" });
    const file = join(cwd, "notes.md");
    const r = await runWith(
      cwd,
      [tool("Agent", { description: "Write notes", prompt: "write", subagent_type: "plain" }), tool("Write", { file_path: file, content: "n\n" }), say("no"), say("done")],
      ["--output-format", "json"],
    );
    expect(toolResultsOf(r.requests[2]!)[0]!.is_error).toBe(true);
    expect(existsSync(file)).toBe(false);
  });

  test("an untrusted checkout's agent cannot raise its own permissions", async () => {
    const cwd = project();
    writeTree(cwd, AGENTS);
    const file = join(cwd, "notes.md");
    const r = await runWith(
      cwd,
      [tool("Agent", { description: "Write notes", prompt: "write", subagent_type: "scribe" }), tool("Write", { file_path: file, content: "n\n" }), say("no"), say("done")],
      ["--output-format", "json"],
      { env: { YOKE_TRUST_WORKSPACE: undefined } },
    );
    expect(existsSync(file)).toBe(false);
    expect(r.requests.length).toBeGreaterThan(2);
  });
});

describe("hooks in agent frontmatter run while that agent runs", () => {
  test("its PreToolUse hook blocks inside the agent only; its Stop runs as SubagentStop", async () => {
    const cwd = project();
    writeTree(cwd, {
      ".claude/agents/guarded.md":
        "---\nname: guarded\ndescription: Guarded\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: \"echo AGENT-HOOK-BLOCK >&2; exit 2\"\n  Stop:\n    - hooks:\n        - type: command\n          command: \"touch agent-stopped\"\n---\nGUARDED\n",
    });
    const bash = (command: string) => tool("Bash", { command });
    const r = await runWith(
      cwd,
      [tool("Agent", { description: "Try bash", prompt: "run it", subagent_type: "guarded" }), bash("echo inside"), say("blocked"), bash("echo outside"), say("done")],
      ["--output-format", "json", "--allowedTools", "Bash"],
    );
    expect(r.code).toBe(0);
    expect(toolResultsOf(r.requests[2]!)[0]).toMatchObject({ is_error: true });
    expect(toolResultsOf(r.requests[2]!)[0]!.text).toContain("AGENT-HOOK-BLOCK");
    expect(existsSync(join(cwd, "agent-stopped"))).toBe(true);
    // After the agent: the parent's Bash is not blocked.
    expect(toolResultsOf(r.requests[4]!)[0]).toMatchObject({ is_error: false, text: "outside" });
  });
});

describe("--agent NAME runs the main conversation as that agent", () => {
  test("its prompt, its tools and its model", async () => {
    const cwd = project();
    writeTree(cwd, AGENTS);
    const r = await runWith(cwd, [say("reviewed")], ["--output-format", "json", "--agent", "reviewer"]);
    expect(r.code).toBe(0);
    const req = r.requests[0]!;
    expect(systemText(req)).toContain("REVIEWER-PROMPT: read, never write.");
    expect(systemText(req)).not.toContain("# How to work");
    expect(req.body.tools.map((t: any) => t.name).sort()).toEqual(["Grep", "Read"]);
    expect(req.body.model).toContain("haiku");
  });

  test("an unknown name is an error naming the flag and the agents there are", async () => {
    const cwd = project();
    writeTree(cwd, AGENTS);
    const r = await runWith(cwd, [say("x")], ["--agent", "nobody"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--agent: no agent named "nobody"');
    expect(r.stderr).toContain("reviewer");
  });
});
