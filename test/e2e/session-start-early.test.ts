// Issue 21 point 2: SessionStart command hooks run while composing waits for the MCP servers, not after it; their
// output contracts (contracts §1.5–1.7, §1.9, §4.3) are unchanged. Ordering is proven by barriers, never by time.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";
import { requestText, runWith, say } from "./hooks-helpers.ts";
import { toolNames } from "./mcp-helpers.ts";

setDefaultTimeout(60_000);

beforeAll(() => {
  yokeBin();
});

const probe = (log: string, gate?: string) => ({ command: "node", args: [join(repoRoot(), "test", "fixtures", "mcp", "probe-server.mjs"), log, ...(gate ? [gate] : [])] });

/** A project with `.claude/settings.json` = {hooks}, and an approved `.mcp.json` server when given. */
function projectWith(hooks: Record<string, unknown>, servers?: Record<string, unknown>): string {
  const cwd = tempDir("yoke-ss-early-");
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({ hooks }, null, 2));
  if (servers) {
    writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: servers }, null, 2));
    writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify({ enableAllProjectMcpServers: true }));
  }
  return cwd;
}

const cmd = (command: string, matcher?: string) => [{ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command }] }];

describe("SessionStart starts while the MCP servers connect (issue 21 point 2)", () => {
  test("a SessionStart hook opens the barrier an MCP server waits on before it answers initialize: both finish, and the first request has the server's tool and the hook's context", async () => {
    const cwd = projectWith(
      { SessionStart: cmd(`touch gate; echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ss-context-7"}}'`) },
      { probe: probe(join(cwd0(), "starts.jsonl"), "gate") },
    );
    const r = await runWith(cwd, [say("ok")], [], { env: { MCP_TIMEOUT: "40000" } });
    expect(r.code).toBe(0);
    // Before: the hook ran only once the servers were listed, so the server waited out its 15 s and listed no tools.
    expect(toolNames(r.requests[0]!)).toContain("mcp__probe__ping");
    expect(requestText(r.requests[0]!)).toContain("ss-context-7");
  });

  test("stream-json: hook_started and hook_response still come before system/init; the systemMessage is said once on stderr", async () => {
    const cwd = projectWith({ SessionStart: cmd(`echo '{"systemMessage":"ss-says-hi"}'`) });
    const r = await runWith(cwd, [say("ok")], ["--output-format", "stream-json", "--verbose"]);
    expect(r.code).toBe(0);
    const kinds = r.lines!.map((l) => `${l.type}/${l.subtype ?? ""}`);
    // contracts §4.3: (system/hook_* for SessionStart) → system/init → assistant → result
    expect(kinds.slice(0, 3)).toEqual(["system/hook_started", "system/hook_response", "system/init"]);
    expect(r.stderr.match(/ss-says-hi/g)).toHaveLength(1);
  });

  test("SessionStart still precedes UserPromptSubmit (contracts §1.9), with the prompt on the command line or on stdin", async () => {
    for (const viaStdin of [false, true]) {
      const cwd = projectWith({
        SessionStart: cmd("echo ss >> order.txt"),
        UserPromptSubmit: cmd("echo ups >> order.txt"),
      });
      const r = viaStdin
        ? await runWith(cwd, [say("ok")], [], { prompt: "", stdin: "from stdin" })
        : await runWith(cwd, [say("ok")], []);
      expect(r.code).toBe(0);
      expect(readFileSync(join(cwd, "order.txt"), "utf8")).toBe("ss\nups\n");
    }
  });

  test("a run that ends before its prompt runs SessionStart hooks never: unknown --agent, no prompt at all", async () => {
    let cwd = projectWith({ SessionStart: cmd("touch ran") });
    let r = await runWith(cwd, [say("ok")], ["--agent", "no-such-agent"]);
    expect(r.code).not.toBe(0);
    expect(existsSync(join(cwd, "ran"))).toBe(false);
    cwd = projectWith({ SessionStart: cmd("touch ran") });
    r = await runWith(cwd, [say("ok")], [], { prompt: "", stdin: "" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Input must be provided");
    expect(existsSync(join(cwd, "ran"))).toBe(false);
  });
});

let scratch: string | undefined;
/** A folder for the probe server's start log, outside the project (so the project's files stay what the test wrote). */
function cwd0(): string {
  scratch ??= tempDir("yoke-ss-probe-");
  return scratch;
}
