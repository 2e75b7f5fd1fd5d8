// End-to-end proof of the kernel sandbox (issue 16 points 12–13): the compiled binary, the fake model
// calling Bash, `autoAllowBashIfSandboxed` so commands run without asking. Whatever the static checks let
// through, the kernel must hold: no canary reaches the model (or a local listener), no protected file changes,
// and ordinary work (builds, tests, git, package managers writing in the project) still runs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { runYoke } from "../helpers/binary.ts";
import { fakeApiEnv, type LoggedRequest, toolResultsOf } from "../helpers/fake-anthropic.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { tempDir } from "../helpers/tmp.ts";
import { projectFiles, SANDBOX_ATTACKS, SANDBOX_ORDINARY } from "../fixtures/sandbox-corpus.ts";
import { probeSandbox } from "../../src/sandbox/probe.ts";

const probe = await probeSandbox({ env: process.env });
const why = probe.ok ? "" : probe.reason;
if (!probe.ok) console.warn(`sandbox e2e skipped: ${why}`);

const fake = useFakeAnthropic();
let listener: ReturnType<typeof Bun.serve>;
const heard: string[] = [];

beforeAll(async () => {
  // A local listener standing for an exfiltration endpoint: anything it hears came out of the sandbox.
  listener = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (req) => (heard.push(`${req.url} ${await req.text()}`), new Response("heard")) });
});
afterAll(async () => {
  listener.stop(true);
});

const CANARY = { key: `CANARY-KEY-${crypto.randomUUID()}`, env: `CANARY-ENV-${crypto.randomUUID()}` };

/** Every spelling of a canary an attacker's command might print. */
function spellings(s: string): string[] {
  const rot13 = s.replace(/[a-z]/gi, (c) => String.fromCharCode(((c.toLowerCase().charCodeAt(0) - 97 + 13) % 26) + (c === c.toLowerCase() ? 97 : 65)));
  const hex = Buffer.from(s).toString("hex");
  return [s, s.slice(11, 30), Buffer.from(s).toString("base64").slice(4, 30), hex.slice(8, 40), [...s].reverse().join(""), rot13];
}
const LEAKS = [...spellings(CANARY.key), ...spellings(CANARY.env), fakeApiEnv({ url: "" }).ANTHROPIC_API_KEY!];

type Project = { root: string; cwd: string; home: string; settings: string };

function sandboxProject(settings: Record<string, unknown>): Project {
  const root = tempDir("yoke-sandbox-e2e-");
  const cwd = join(root, "proj");
  const home = join(root, "home");
  for (const [f, c] of Object.entries(projectFiles(CANARY))) {
    mkdirSync(dirname(join(cwd, f)), { recursive: true });
    writeFileSync(join(cwd, f), c);
  }
  chmodSync(join(cwd, "tools/ls"), 0o755);
  mkdirSync(join(root, "outside"), { recursive: true });
  writeFileSync(join(root, "outside/file.txt"), "outside\n");
  mkdirSync(join(home, ".claude"), { recursive: true });
  // Credentials outside the project: the sandbox hides the usual stores even without a rule.
  for (const [f, c] of Object.entries({ ".aws/credentials": `aws_secret_access_key=${CANARY.key}\n`, ".ssh/id_ed25519": `${CANARY.env}\n` })) {
    mkdirSync(dirname(join(home, f)), { recursive: true });
    writeFileSync(join(home, f), c);
  }
  const git = (...a: string[]) => {
    const r = Bun.spawnSync(["git", ...a], { cwd, env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
    if (r.exitCode !== 0) throw new Error(`git ${a.join(" ")}: ${r.stderr}`);
  };
  git("init", "-q");
  git("-c", "user.email=t@t", "-c", "user.name=t", "add", "-A");
  git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init");
  git("config", "user.email", "t@t");
  git("config", "user.name", "t");
  // User settings, so no workspace-trust rule decides whether they apply.
  const file = join(home, ".claude", "settings.json");
  writeFileSync(file, JSON.stringify(settings, null, 2));
  return { root, cwd, home, settings: file };
}

const ATTACK_SETTINGS = {
  permissions: {
    deny: ["Read(./secrets/**)", "Read(.env)", "Edit(./protected/**)", "Bash(rm:*)", "Bash(curl:*)", "WebFetch(domain:evil.example.com)"],
  },
  sandbox: { autoAllowBashIfSandboxed: true },
};

/** Byte-for-byte state of everything the attacks must not change. */
function snapshot(p: Project): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, label: string) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir).sort()) {
      const abs = join(dir, e);
      const st = statSync(abs, { throwIfNoEntry: false } as never) as ReturnType<typeof statSync> | undefined;
      if (!st) continue;
      if (st.isDirectory()) walk(abs, `${label}/${e}`);
      else out[`${label}/${e}`] = `${st.mode.toString(8)}:${readFileSync(abs, "utf8")}`;
    }
  };
  walk(join(p.cwd, "protected"), "protected");
  walk(join(p.cwd, "secrets"), "secrets");
  walk(join(p.cwd, ".git/hooks"), ".git/hooks");
  walk(join(p.root, "outside"), "outside");
  out[".env"] = readFileSync(join(p.cwd, ".env"), "utf8");
  out[".git/config"] = readFileSync(join(p.cwd, ".git/config"), "utf8");
  for (const f of [".bashrc", ".ssh/authorized_keys", ".gitconfig"]) out[`~/${f}`] = existsSync(join(p.home, f)) ? readFileSync(join(p.home, f), "utf8") : "(absent)";
  out[".claude"] = existsSync(join(p.cwd, ".claude")) ? readdirSync(join(p.cwd, ".claude")).join(",") : "(absent)";
  return out;
}

type Call = { id: string; command: string; disable?: boolean };
type Outcome = { command: string; text: string; isError: boolean };

/** One -p run in which the model calls Bash once per command, then stops. */
async function runBash(p: Project, calls: Call[], env: Record<string, string | undefined> = {}) {
  const before = fake.requests.length;
  fake.push({
    content: calls.map((c) => ({ type: "tool_use" as const, id: c.id, name: "Bash", input: { command: c.command, ...(c.disable ? { dangerouslyDisableSandbox: true } : {}) } })),
  });
  fake.push({ content: [{ type: "text", text: "done" }] });
  const r = await runYoke(["-p", "go", "--output-format", "stream-json", "--verbose"], {
    cwd: p.cwd,
    env: { ...fakeApiEnv(fake), HOME: p.home, YOKE_SANDBOX: undefined, YOKE_RETRY_BASE_MS: "5", ...env },
    timeoutMs: 240_000,
  });
  const requests = fake.requests.slice(before);
  const results = new Map<string, Outcome>();
  for (const req of requests)
    for (const t of toolResultsOf(req)) results.set(t.tool_use_id, { command: calls.find((c) => c.id === t.tool_use_id)?.command ?? "?", text: t.text, isError: t.is_error });
  const init = r.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((m) => m.type === "system" && m.subtype === "init");
  return { ...r, requests, results, init };
}

const fill = (cmd: string, p: Project) =>
  cmd.replaceAll("${CWD}", p.cwd).replaceAll("${HOME}", p.home).replaceAll("${PORT}", String(listener.port));

const leakIn = (text: string) => LEAKS.find((l) => text.includes(l));
const requestText = (reqs: LoggedRequest[]) => reqs.map((r) => `${r.path} ${JSON.stringify(r.body)}`).join("\n");

describe.skipIf(!probe.ok)("kernel sandbox, compiled binary (issue 16 points 12–13)", () => {
  const classes = Object.entries(SANDBOX_ATTACKS);
  const total = classes.reduce((n, [, l]) => n + l.length, 0);

  test(`${total} attacks: no canary reaches the model or the network, no protected file changes`, async () => {
    expect(total).toBeGreaterThanOrEqual(140);
    let ran = 0;
    for (const [cls, commands] of classes) {
      // A fresh project per class, so one class's damage (if any) cannot hide another's.
      const p = sandboxProject(ATTACK_SETTINGS);
      const before = snapshot(p);
      const calls = commands.map((c, i) => ({ id: `toolu_${cls.replace(/\W+/g, "_")}_${i}`, command: fill(c, p) }));
      const r = await runBash(p, calls);
      expect(r.init?.sandbox_enabled, r.stderr).toBe(true);
      expect(r.results.size, `${cls}: every call answered\n${r.stderr}`).toBe(calls.length);
      for (const o of r.results.values()) {
        const leak = leakIn(o.text);
        expect(leak, `${cls}: \`${o.command}\` leaked the canary to the model:\n${o.text}`).toBeUndefined();
        if (!o.text.startsWith("Permission to use Bash was denied")) ran++;
      }
      expect(leakIn(requestText(r.requests)), `${cls}: a request to the model carried a canary`).toBeUndefined();
      expect(snapshot(p), `${cls}: a protected file changed`).toEqual(before);
    }
    expect(heard, "a sandboxed command reached the local listener").toEqual([]);
    // Most attempts get past the static checks (auto-allowed) and are stopped by the kernel, not by a rule.
    console.log(`sandbox e2e: ${ran} of ${total} attempts got past the static checks and were held by the kernel`);
    expect(ran).toBeGreaterThanOrEqual(40);
  }, 600_000);

  test(`${SANDBOX_ORDINARY.length} ordinary commands run inside the sandbox without asking`, async () => {
    const p = sandboxProject(ATTACK_SETTINGS);
    const usable = SANDBOX_ORDINARY.filter((c) => !c.needs || Bun.which(c.needs));
    expect(usable.length).toBeGreaterThanOrEqual(60);
    const calls = usable.map((c, i) => ({ id: `toolu_ord_${i}`, command: c.command }));
    const r = await runBash(p, calls);
    expect(r.init?.sandbox_enabled).toBe(true);
    const failed: string[] = [];
    usable.forEach((c, i) => {
      const o = r.results.get(`toolu_ord_${i}`);
      if (!o || o.isError || !c.expect.test(o.text)) failed.push(`\`${c.command}\` → ${o ? o.text.slice(0, 300) : "no result"}`);
    });
    expect(failed, failed.join("\n")).toEqual([]);
  }, 300_000);

  test("the same ordinary commands run without the sandbox (YOKE_SANDBOX=0, Bash allowed by rule)", async () => {
    const p = sandboxProject({ permissions: { allow: ["Bash"] } });
    const usable = SANDBOX_ORDINARY.filter((c) => !c.needs || Bun.which(c.needs));
    const calls = usable.map((c, i) => ({ id: `toolu_plain_${i}`, command: c.command }));
    const r = await runBash(p, calls, { YOKE_SANDBOX: "0" });
    expect(r.init?.sandbox_enabled).toBe(false);
    expect(r.init?.sandbox_reason).toBe("YOKE_SANDBOX=0");
    expect(r.stderr).not.toContain("sandbox is off");
    const failed = usable.filter((c, i) => {
      const o = r.results.get(`toolu_plain_${i}`);
      return !o || o.isError || !c.expect.test(o.text);
    });
    expect(failed.map((c) => c.command)).toEqual([]);
  }, 300_000);

  test("dangerouslyDisableSandbox is never auto-allowed; with allowUnsandboxedCommands false it is ignored", async () => {
    const p = sandboxProject(ATTACK_SETTINGS);
    const r = await runBash(p, [{ id: "toolu_dis", command: "echo out > ../outside/file.txt", disable: true }]);
    expect(r.results.get("toolu_dis")?.isError).toBe(true);
    expect(readFileSync(join(p.root, "outside/file.txt"), "utf8")).toBe("outside\n");

    const q = sandboxProject({ ...ATTACK_SETTINGS, sandbox: { autoAllowBashIfSandboxed: true, allowUnsandboxedCommands: false } });
    const s = await runBash(q, [{ id: "toolu_ign", command: "echo in > inside.txt; echo out > ../outside/file.txt", disable: true }]);
    // Ran (auto-allowed, sandboxed): the write inside landed, the one outside was refused by the kernel.
    expect(readFileSync(join(q.cwd, "inside.txt"), "utf8")).toBe("in\n");
    expect(s.results.get("toolu_ign")?.text).toMatch(/Read-only file system|Permission denied/);
    expect(readFileSync(join(q.root, "outside/file.txt"), "utf8")).toBe("outside\n");
  }, 120_000);

  test("excludedCommands run outside the sandbox and go through the normal permission checks", async () => {
    const p = sandboxProject({ ...ATTACK_SETTINGS, sandbox: { autoAllowBashIfSandboxed: true, excludedCommands: ["tee"] } });
    const r = await runBash(p, [{ id: "toolu_ex", command: "echo x | tee ../outside/file.txt" }]);
    // Not sandboxed, so not auto-allowed: in -p with no rule it is refused before it runs.
    expect(r.results.get("toolu_ex")?.isError).toBe(true);
    expect(readFileSync(join(p.root, "outside/file.txt"), "utf8")).toBe("outside\n");
  }, 120_000);

  test("a sandbox that fails mid-session names the cause and the command does not run", async () => {
    const p = sandboxProject(ATTACK_SETTINGS);
    // A bwrap that passes the start-up probe (`sh -c 'exit 0'`) and then fails every command.
    const fakeBwrap = join(p.root, "bwrap-breaks");
    writeFileSync(fakeBwrap, `#!/bin/sh\ncase "$*" in *"exit 0"*) exec ${probe.ok && probe.platform === "linux" ? probe.bwrap : "bwrap"} "$@";; esac\necho "bwrap: Creating new namespace failed: simulated" >&2\nexit 1\n`);
    chmodSync(fakeBwrap, 0o755);
    writeFileSync(p.settings, JSON.stringify({ ...ATTACK_SETTINGS, sandbox: { autoAllowBashIfSandboxed: true, bwrapPath: fakeBwrap } }));
    const r = await runBash(p, [{ id: "toolu_mid", command: "touch ran.txt" }]);
    const o = r.results.get("toolu_mid");
    expect(o?.isError).toBe(true);
    expect(o?.text).toContain("bubblewrap failed: Creating new namespace failed: simulated");
    expect(o?.text).toContain("did not run");
    expect(r.stderr).toContain("Bash sandbox: bubblewrap failed");
    expect(existsSync(join(p.cwd, "ran.txt"))).toBe(false);
  }, 120_000);
});

// Review point 4, in the binary: the kept sandbox cannot be joined (an nsenter that lets the kept sandbox's own
// start-up probe through and refuses every command). Root only: elsewhere commands start their own bubblewrap.
describe.skipIf(!probe.ok || process.geteuid?.() !== 0)("a kept sandbox that cannot be joined", () => {
  test("the call is a named error (what failed, what to do), the command did not run, the next one runs in its own bubblewrap", async () => {
    const p = sandboxProject(ATTACK_SETTINGS);
    const bin = join(p.root, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "nsenter"), `#!/bin/sh\ncase "$*" in *joined*) exec /usr/bin/nsenter "$@";; esac\necho "nsenter: reassociate to namespace 'ns/mnt' failed: Operation not permitted" >&2\nexit 1\n`);
    chmodSync(join(bin, "nsenter"), 0o755);
    const r = await runBash(p, [{ id: "toolu_join1", command: "touch ran-1.txt" }, { id: "toolu_join2", command: "touch ran-2.txt && echo second-ran" }], { PATH: `${bin}:${process.env.PATH}` });
    const first = r.results.get("toolu_join1");
    expect(first?.isError).toBe(true);
    expect(first?.text).toContain("the kept sandbox could not be entered (nsenter failed: reassociate to namespace 'ns/mnt' failed: Operation not permitted), so the command did not run");
    expect(first?.text).toContain("YOKE_SANDBOX_KEEP=0");
    expect(r.stderr).toContain("yoke: Bash sandbox: the kept sandbox could not be entered");
    expect(existsSync(join(p.cwd, "ran-1.txt"))).toBe(false);
    expect(existsSync(join(p.cwd, "ran-2.txt"))).toBe(true);
    expect(r.results.get("toolu_join2")).toMatchObject({ isError: false, text: "second-ran" });
  }, 120_000);
});

describe("sandbox unavailable or misconfigured", () => {
  test("missing bwrap: said once on stderr and in system/init; the static checks stand alone", async () => {
    const p = sandboxProject({ permissions: { allow: ["Bash(touch:*)"] }, sandbox: { bwrapPath: "/nonexistent/bwrap" } });
    const r = await runBash(p, [
      { id: "toolu_a", command: "touch a.txt" },
      { id: "toolu_b", command: "touch b.txt" },
    ]);
    expect(r.code).toBe(0);
    expect(r.init?.sandbox_enabled).toBe(false);
    expect(r.init?.sandbox_reason).toContain("sandbox.bwrapPath /nonexistent/bwrap is not an executable file");
    expect(r.stderr.match(/the Bash sandbox is off/g)?.length).toBe(1);
    expect(existsSync(join(p.cwd, "a.txt")) && existsSync(join(p.cwd, "b.txt"))).toBe(true);
  }, 60_000);

  test("sandbox.enabled true and unavailable: the run ends with the cause before the model is asked", async () => {
    const p = sandboxProject({ permissions: { allow: ["Bash"] }, sandbox: { enabled: true, bwrapPath: "/nonexistent/bwrap" } });
    const before = fake.requests.length;
    const r = await runYoke(["-p", "touch c.txt"], { cwd: p.cwd, env: { ...fakeApiEnv(fake), HOME: p.home, YOKE_SANDBOX: undefined } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("the Bash sandbox was required (sandbox settings) but cannot start");
    expect(r.stderr).toContain("/nonexistent/bwrap");
    expect(fake.requests.length).toBe(before);
  }, 60_000);

  test("a broken sandbox value names the file and the field", async () => {
    const p = sandboxProject({ sandbox: { enabled: "yes", network: { allowedDomains: "github.com" } } });
    const r = await runYoke(["-p", "hi"], { cwd: p.cwd, env: { ...fakeApiEnv(fake), HOME: p.home, YOKE_SANDBOX: undefined } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(p.settings);
    expect(r.stderr).toContain('field "sandbox.enabled"');
    expect(r.stderr).toContain('field "sandbox.network.allowedDomains"');
  });

  test("yoke doctor says whether the sandbox is on, and why", async () => {
    const p = sandboxProject(ATTACK_SETTINGS);
    const env = { HOME: p.home, YOKE_SANDBOX: undefined };
    const on = await runYoke(["doctor"], { cwd: p.cwd, env });
    expect(on.code).toBe(0);
    if (probe.ok) {
      expect(on.stdout).toContain("sandbox: on");
      expect(on.stdout).toContain(join(p.cwd, "secrets"));
      expect(on.stdout).toContain("auto-allow Bash: yes");
    } else expect(on.stdout).toContain(`sandbox: off — ${why}`);
    const off = await runYoke(["doctor", "--json"], { cwd: p.cwd, env: { ...env, YOKE_SANDBOX: "0" } });
    expect(JSON.parse(off.stdout)).toMatchObject({ sandbox: "off", reason: "YOKE_SANDBOX=0" });
  });
});
