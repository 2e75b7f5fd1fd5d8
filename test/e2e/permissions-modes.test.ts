// End-to-end (issue 5): permission modes, working directories, hidden tools and managed rules in real
// `yoke -p` runs of the compiled binary against the fake API (contracts §3.2, §3.3).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke, TRUST_WORKSPACE } from "../helpers/binary.ts";
import { fakeApiEnv, type FakeEntry, type LoggedRequest, toolResultsOf } from "../helpers/fake-anthropic.ts";
import { tempDir } from "../helpers/tmp.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";

const fake = useFakeAnthropic();

const isRoot = process.getuid?.() === 0;

type Out = { code: number | null; json: any; stdout: string; stderr: string; requests: LoggedRequest[] };

async function run(o: { cwd: string; args?: string[]; script: FakeEntry[]; env?: Record<string, string | undefined>; format?: string }): Promise<Out> {
  const before = fake.requests.length;
  fake.push(...o.script);
  const env = isolatedEnv({ ...TRUST_WORKSPACE, ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5", ...o.env });
  const r = await runYoke(["-p", "go", "--output-format", o.format ?? "json", ...(o.args ?? [])], { cwd: o.cwd, env });
  let json: any = null;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    /* text output or a failed start */
  }
  return { code: r.code, json, stdout: r.stdout, stderr: r.stderr, requests: fake.requests.slice(before) };
}

const call = (name: string, input: Record<string, unknown>, id = `toolu_${name}_${Math.random().toString(36).slice(2, 8)}`) =>
  ({ content: [{ type: "tool_use" as const, id, name, input }] });
const say = (text: string) => ({ content: [{ type: "text" as const, text }] });
const toolNames = (req: LoggedRequest) => (req.body.tools as Array<{ name: string }>).map((t) => t.name);

function project(settings?: Record<string, unknown>): string {
  const cwd = tempDir("yoke-modes-");
  if (settings) {
    mkdirSync(join(cwd, ".claude"), { recursive: true });
    writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify(settings));
  }
  return cwd;
}

describe("default mode (contracts §3.3)", () => {
  test("reads run, a Bash command with no allow rule is denied headless", async () => {
    const cwd = project();
    writeFileSync(join(cwd, "notes.txt"), "hello notes");
    const r = await run({ cwd, script: [call("Read", { file_path: join(cwd, "notes.txt") }), call("Bash", { command: "touch made" }), say("Stopped.")] });
    expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ is_error: false });
    expect(toolResultsOf(r.requests[1]!)[0]!.text).toContain("hello notes");
    expect(toolResultsOf(r.requests[2]!)[0]!.is_error).toBe(true);
    expect(existsSync(join(cwd, "made"))).toBe(false);
    expect(r.json.permission_denials).toHaveLength(1);
    expect(r.code).toBe(0); // exit 3 only with --exit-code-on-denial
  });
});

describe("the starting mode (contracts §2.2, §3.3)", () => {
  const initMode = async (cwd: string, args: string[] = [], env: Record<string, string | undefined> = {}) => {
    const r = await run({ cwd, format: "stream-json", args: ["--verbose", ...args], script: [say("hi")], env });
    return JSON.parse(r.stdout.split("\n")[0]!).permissionMode;
  };
  test("committed project settings cannot escalate to bypassPermissions; local settings and the flag can set a mode", async () => {
    const cwd = project({ permissions: { defaultMode: "bypassPermissions" } });
    expect(await initMode(cwd, [], { IS_SANDBOX: "1" })).toBe("default");
    writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify({ permissions: { defaultMode: "acceptEdits" } }));
    expect(await initMode(cwd)).toBe("acceptEdits");
    expect(await initMode(cwd, ["--permission-mode", "plan"])).toBe("plan");
  });
});

describe("acceptEdits and working directories (contracts §3.3, issue 5 §4)", () => {
  test("edits inside cwd run; a write outside every working directory is denied headless", async () => {
    const cwd = project();
    const outside = tempDir("yoke-outside-");
    const r = await run({
      cwd,
      args: ["--permission-mode", "acceptEdits"],
      script: [call("Write", { file_path: join(cwd, "in.txt"), content: "in" }), call("Write", { file_path: join(outside, "out.txt"), content: "out" }), say("ok")],
    });
    expect(readFileSync(join(cwd, "in.txt"), "utf8")).toBe("in");
    expect(existsSync(join(outside, "out.txt"))).toBe(false);
    const tr = toolResultsOf(r.requests[2]!)[0]!;
    expect(tr.is_error).toBe(true);
    expect(tr.text).toContain("outside the working directories");
    expect(r.json.permission_denials.map((d: any) => d.tool_name)).toEqual(["Write"]);
  });

  test("--add-dir makes another folder a working directory", async () => {
    const cwd = project();
    const extra = tempDir("yoke-extra-");
    const r = await run({
      cwd,
      args: ["--permission-mode", "acceptEdits", "--add-dir", extra],
      script: [call("Write", { file_path: join(extra, "out.txt"), content: "out" }), say("ok")],
    });
    expect(r.json.permission_denials).toEqual([]);
    expect(readFileSync(join(extra, "out.txt"), "utf8")).toBe("out");
    expect(r.code).toBe(0);
  });

  test("permissions.additionalDirectories in settings works like --add-dir", async () => {
    const extra = tempDir("yoke-extra-");
    const cwd = project({ permissions: { additionalDirectories: [extra] } });
    const r = await run({ cwd, args: ["--permission-mode", "acceptEdits"], script: [call("Write", { file_path: join(extra, "s.txt"), content: "s" }), say("ok")] });
    expect(r.json.permission_denials).toEqual([]);
    expect(existsSync(join(extra, "s.txt"))).toBe(true);
  });
});

describe("plan mode (contracts §3.3)", () => {
  test("edits are blocked; ExitPlanMode ends the run with the plan as the result", async () => {
    const cwd = project();
    const plan = "# Plan\n1. Add the file\n2. Test it";
    const r = await run({
      cwd,
      args: ["--permission-mode", "plan"],
      script: [call("Write", { file_path: join(cwd, "p.txt"), content: "p" }), call("ExitPlanMode", { plan })],
    });
    expect(existsSync(join(cwd, "p.txt"))).toBe(false);
    expect(toolResultsOf(r.requests[1]!)[0]!.text).toContain("Plan mode");
    expect(r.json).toMatchObject({ subtype: "success", is_error: false, result: plan, terminal_reason: "plan_ready" });
    expect(r.json.permission_denials).toHaveLength(1);
    expect(r.requests).toHaveLength(2); // no model call after the plan
    expect(fake.pending).toBe(0);
    expect(r.code).toBe(0);
  });

  test("text output prints the plan", async () => {
    const cwd = project();
    const r = await run({ cwd, format: "text", args: ["--permission-mode", "plan"], script: [call("ExitPlanMode", { plan: "Step one." })] });
    expect(r.stdout).toBe("Step one.\n");
    expect(r.code).toBe(0);
  });
});

describe("dontAsk mode (contracts §3.3)", () => {
  test("whatever would prompt is denied; allowed and read-only calls run", async () => {
    const cwd = project({ permissions: { allow: ["Bash(touch allowed:*)"] } });
    const r = await run({
      cwd,
      args: ["--permission-mode", "dontAsk"],
      script: [call("Bash", { command: "touch nope" }), call("Bash", { command: "touch allowed" }), say("done")],
    });
    expect(existsSync(join(cwd, "nope"))).toBe(false);
    expect(existsSync(join(cwd, "allowed"))).toBe(true);
    expect(toolResultsOf(r.requests[1]!)[0]!.text).toContain("dontAsk");
    expect(r.json.permission_denials).toHaveLength(1);
    expect(r.code).toBe(0); // a call succeeded after the denial
  });
});

describe("bypassPermissions (contracts §3.3)", () => {
  test.if(isRoot)("as root without IS_SANDBOX=1 it refuses to start: clear message, exit 1, no model call", async () => {
    for (const flags of [["--permission-mode", "bypassPermissions"], ["--dangerously-skip-permissions"]]) {
      const cwd = project();
      const r = await run({ cwd, args: flags, script: [], env: { IS_SANDBOX: undefined } });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("bypassPermissions mode cannot be used as root");
      expect(r.stderr).toContain("IS_SANDBOX=1");
      expect(r.requests).toHaveLength(0);
    }
  });

  test("with IS_SANDBOX=1 everything runs, except what deny rules forbid", async () => {
    const cwd = project({ permissions: { deny: ["Read(.env)", "Bash(rm:*)"] } });
    writeFileSync(join(cwd, ".env"), "TOKEN=x");
    writeFileSync(join(cwd, "keep"), "k");
    const outside = tempDir("yoke-outside-");
    const r = await run({
      cwd,
      args: ["--permission-mode", "bypassPermissions"],
      env: { IS_SANDBOX: "1" },
      script: [
        call("Write", { file_path: join(outside, "w.txt"), content: "w" }),
        call("Bash", { command: "touch made" }),
        call("Read", { file_path: join(cwd, ".env") }),
        call("Bash", { command: "cat .env" }),
        call("Bash", { command: "rm keep" }),
        say("done"),
      ],
    });
    expect(readFileSync(join(outside, "w.txt"), "utf8")).toBe("w");
    expect(existsSync(join(cwd, "made"))).toBe(true);
    expect(existsSync(join(cwd, "keep"))).toBe(true);
    for (const i of [3, 4, 5]) {
      const tr = toolResultsOf(r.requests[i]!)[0]!;
      expect(tr.is_error).toBe(true);
      expect(tr.text).not.toContain("TOKEN=x");
      expect(tr.text).toMatch(/rule (Read\(\.env\)|Bash\(rm:\*\))/);
    }
    expect(r.json.permission_denials.map((d: any) => d.tool_name)).toEqual(["Read", "Bash", "Bash"]);
    expect(r.code).toBe(0); // exit 3 only with --exit-code-on-denial
  });
});

describe("bare deny rules hide tools (contracts §3.1)", () => {
  test("--disallowedTools Bash and a settings deny of Write remove both from the request; a scoped deny keeps the tool", async () => {
    const cwd = project({ permissions: { deny: ["Write", "Edit(/src/**)"] } });
    const r = await run({ cwd, args: ["--disallowedTools", "Bash"], script: [say("hi")] });
    const names = toolNames(r.requests[0]!);
    expect(names).not.toContain("Bash");
    expect(names).not.toContain("Write");
    expect(names).toContain("Read");
    expect(names).toContain("Edit");
    expect(r.code).toBe(0);
  });
});

describe("managed settings (contracts §2.1, §3.2)", () => {
  test("a managed deny holds against --allowedTools and project allow rules, and explain names the managed file", async () => {
    const managed = tempDir("yoke-managed-");
    writeFileSync(join(managed, "managed-settings.json"), JSON.stringify({ permissions: { deny: ["Bash(touch:*)"] } }));
    const cwd = project({ permissions: { allow: ["Bash(touch:*)"] } });
    const r = await run({
      cwd,
      args: ["--allowedTools", "Bash(touch:*)"],
      env: { YOKE_MANAGED_DIR: managed },
      script: [call("Bash", { command: "touch forbidden" }), say("no")],
    });
    expect(existsSync(join(cwd, "forbidden"))).toBe(false);
    expect(toolResultsOf(r.requests[1]!)[0]!.text).toContain("Bash(touch:*)");
    expect(r.json.permission_denials).toHaveLength(1);

    const env = isolatedEnv({ YOKE_MANAGED_DIR: managed });
    const e = await runYoke(["permissions", "explain", "Bash", "touch forbidden", "--allowedTools", "Bash(touch:*)", "--json"], { cwd, env });
    expect(e.code).toBe(0);
    const ex = JSON.parse(e.stdout);
    expect(ex).toMatchObject({ decision: "deny", rule: { text: "Bash(touch:*)", list: "deny", file: join(managed, "managed-settings.json") } });
  });
});
