// `yoke permissions explain` through the compiled binary (issue 5 §8): no credentials, the same flags and
// settings files as a run, text and --json output, exit 0 whatever the decision.
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runYoke, TRUST_WORKSPACE, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

beforeAll(() => yokeBin());

function project(perms: Record<string, unknown>): { cwd: string; settingsFile: string } {
  const cwd = tempDir("yoke-explain-");
  const settingsFile = join(cwd, ".claude", "settings.json");
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  writeFileSync(settingsFile, JSON.stringify({ permissions: perms }));
  writeFileSync(join(cwd, ".env"), "TOKEN=x");
  return { cwd, settingsFile };
}

const explain = (cwd: string, args: string[], env: Record<string, string | undefined> = {}) =>
  runYoke(["permissions", "explain", ...args], { cwd, env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, ...TRUST_WORKSPACE, ...env } });

describe("yoke permissions explain", () => {
  test("text: decision, mode, the rule and the file and list index that decided it; no credentials needed", async () => {
    const p = project({ allow: ["Bash(ls:*)"], deny: ["Bash(curl:*)", "Read(.env)"] });
    const r = await explain(p.cwd, ["Bash", "cat .env"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout.split("\n");
    expect(lines.slice(0, 4)).toEqual(["decision: deny", "mode: default", "rule: Read(.env)", `from: ${p.settingsFile} (permissions.deny[1])`]);
    expect(r.stdout).toContain("why: ");
  });

  test("nothing matched: says so and why (read-only built-in, or needs approval and would be denied headless)", async () => {
    const p = project({ allow: ["Bash(ls:*)"] });
    const read = await explain(p.cwd, ["Read", "README.md"]);
    expect(read.stdout).toContain("decision: allow");
    expect(read.stdout).toContain("rule: none matched");
    expect(read.stdout).toContain("inside the working directories");
    const touch = await explain(p.cwd, ["Bash", "touch x"]);
    expect(touch.code).toBe(0);
    expect(touch.stdout).toContain("decision: ask (headless -p: deny, nobody is there to approve)");
    expect(touch.stdout).toContain("rule: none matched");
  });

  test("--json, JSON input, and bare-string shortcuts for file_path and url", async () => {
    const p = project({ deny: ["WebFetch(domain:evil.example.com)"], allow: ["WebFetch"] });
    const j = await explain(p.cwd, ["Edit", JSON.stringify({ file_path: "src/a.ts", old_string: "a", new_string: "b" }), "--json"]);
    expect(JSON.parse(j.stdout)).toMatchObject({ tool: "Edit", input: { file_path: "src/a.ts" }, decision: "ask", headless: "deny", mode: "default", builtin: true });
    const w = JSON.parse((await explain(p.cwd, ["WebFetch", "https://EVIL.example.com/x", "--json"])).stdout);
    expect(w).toMatchObject({ input: { url: "https://EVIL.example.com/x" }, decision: "deny", rule: { text: "WebFetch(domain:evil.example.com)", list: "deny", index: 0, file: p.settingsFile } });
    const ok = JSON.parse((await explain(p.cwd, ["WebFetch", "https://docs.example.com/", "--json"])).stdout);
    expect(ok).toMatchObject({ decision: "allow", rule: { text: "WebFetch", list: "allow" } });
  });

  test("run flags: --permission-mode, --allowedTools, --disallowedTools, --add-dir, --settings", async () => {
    const p = project({});
    const extra = tempDir("yoke-explain-extra-");
    const j = async (args: string[]) => JSON.parse((await explain(p.cwd, [...args, "--json"])).stdout);
    expect((await j(["Write", join(p.cwd, "a.txt"), "--permission-mode", "acceptEdits"])).decision).toBe("allow");
    expect((await j(["Write", join(extra, "a.txt"), "--permission-mode", "acceptEdits"])).decision).toBe("ask");
    expect((await j(["Write", join(extra, "a.txt"), "--permission-mode", "acceptEdits", "--add-dir", extra])).decision).toBe("allow");
    expect(await j(["Bash", "npm test", "--allowedTools", "Bash(npm test:*)"])).toMatchObject({ decision: "allow", rule: { text: "Bash(npm test:*)", file: "--allowedTools" } });
    const hidden = await j(["Bash", "ls", "--disallowedTools", "Bash"]);
    expect(hidden).toMatchObject({ decision: "deny", rule: { text: "Bash", file: "--disallowedTools" } });
    expect(hidden.steps.join("\n")).toContain("hidden from the model");
    const flagFile = join(extra, "flag-settings.json");
    writeFileSync(flagFile, JSON.stringify({ permissions: { deny: ["Bash(git push:*)"] } }));
    expect(await j(["Bash", "git push origin main", "--settings", flagFile])).toMatchObject({ decision: "deny", rule: { file: flagFile } });
    expect(await j(["Bash", "ls", "--permission-mode", "plan"])).toMatchObject({ decision: "allow", mode: "plan" });
  });

  test.if(process.getuid?.() === 0)("bypassPermissions as root without IS_SANDBOX=1: still explains, warns that a run would not start", async () => {
    const p = project({ deny: ["Read(.env)"] });
    const r = await explain(p.cwd, ["Read", ".env", "--dangerously-skip-permissions"], { IS_SANDBOX: undefined });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("decision: deny");
    expect(r.stdout).toContain("mode: bypassPermissions");
    expect(r.stdout).toContain("warning: a run in this mode would not start");
  });

  test("names PreToolUse hooks that would run first in a real run, without running them", async () => {
    const p = project({ allow: ["Bash(ls:*)"] });
    const marker = join(p.cwd, "hook-ran");
    writeFileSync(
      p.settingsFile,
      JSON.stringify({ permissions: { allow: ["Bash(ls:*)"] }, hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `touch ${marker}` }] }, { matcher: "Write", hooks: [{ type: "command", command: "true" }] }] } }),
    );
    const r = JSON.parse((await explain(p.cwd, ["Bash", "ls", "--json"])).stdout);
    expect(r.hooks).toEqual([{ event: "PreToolUse", matcher: "Bash", command: `touch ${marker}`, source: p.settingsFile }]);
    expect(r.steps.join("\n")).toContain("explain does not run it");
    expect(Bun.file(marker).size).toBe(0);
    expect(await Bun.file(marker).exists()).toBe(false);
  });

  test("usage errors exit 1 with one clear line; settings errors name the file", async () => {
    const p = project({});
    const bad = await explain(p.cwd, ["Bash", "{not json"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("INPUT looks like JSON but does not parse");
    const noField = await explain(p.cwd, ["mcp__db__query", "select 1"]);
    expect(noField.code).toBe(1);
    expect(noField.stderr).toContain("pass the input as a JSON object");
    const noTool = await explain(p.cwd, []);
    expect(noTool.code).toBe(1);
    expect(noTool.stderr).toContain("missing TOOL");
    const unknown = await runYoke(["permissions", "frobnicate"], { cwd: p.cwd });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("unknown subcommand 'frobnicate'");
    writeFileSync(join(p.cwd, ".claude", "settings.json"), '{"permissions": {"allow": 5}}');
    const broken = await explain(p.cwd, ["Bash", "ls"]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(join(p.cwd, ".claude", "settings.json"));
  });

  test("--batch: one JSON line per query, bad lines answered with their line number", async () => {
    const p = project({ deny: ["Read(.env)"] });
    const batch = join(p.cwd, "q.jsonl");
    writeFileSync(batch, [JSON.stringify({ tool: "Read", input: ".env" }), "", "nope", JSON.stringify({ tool: "Write", input: { file_path: "a" }, mode: "dontAsk" })].join("\n"));
    const r = await explain(p.cwd, ["--batch", batch]);
    expect(r.code).toBe(0);
    const out = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(out).toHaveLength(3);
    expect(out[0]).toMatchObject({ decision: "deny", rule: { text: "Read(.env)" } });
    expect(out[1]).toMatchObject({ line: 3 });
    expect(out[1].error).toBeString();
    expect(out[2]).toMatchObject({ decision: "deny", mode: "dontAsk" });
  });
});
