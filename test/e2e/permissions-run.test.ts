// End-to-end (issue 5): real `yoke -p` runs against the fake API where the model calls tools that the
// permission rules deny or allow. Denied calls must never run: programs are PATH shims that log every
// execution to a marker file, and protected files are checked byte for byte afterwards.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { isolatedEnv, runYoke, TRUST_WORKSPACE } from "../helpers/binary.ts";
import { fakeApiEnv, type LoggedRequest, toolResultsOf } from "../helpers/fake-anthropic.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { tempDir } from "../helpers/tmp.ts";
import { BYPASS_ATTEMPTS, type CorpusCase, ORDINARY_ALLOWED } from "../fixtures/permission-corpus.ts";
import { corpusProject, substCwd } from "../helpers/permission-project.ts";

const fake = useFakeAnthropic();
let shims: string;
const SHIMMED = ["cat", "rm", "cp", "head", "tail", "base64", "awk", "sed", "ls", "wc", "tee", "touch", "find", "xargs", "grep", "sort", "uniq"];

beforeAll(async () => {
  shims = tempDir("yoke-shims-");
  for (const name of SHIMMED) {
    const real = Bun.which(name);
    if (!real) continue;
    const f = join(shims, name);
    writeFileSync(f, `#!/bin/sh\necho "${name} $*" >> "$YOKE_TEST_MARKER"\nexec ${real} "$@"\n`);
    chmodSync(f, 0o755);
  }
});

const byName = (list: CorpusCase[], names: string[]) =>
  names.map((n) => {
    const c = list.find((x) => x.name === n);
    if (!c) throw new Error(`no corpus case named ${n}`);
    return c;
  });

const FILE_FIELDS = ["file_path", "notebook_path", "path"];
/** The corpus input as a model would send it: ${CWD} filled in, file tool paths absolute. */
function modelInput(c: CorpusCase, cwd: string): Record<string, unknown> {
  const input = substCwd(c.input, cwd);
  if (c.tool !== "Bash")
    for (const k of FILE_FIELDS) if (typeof input[k] === "string" && !isAbsolute(input[k] as string)) input[k] = join(cwd, input[k] as string);
  return input;
}

type Run = { code: number | null; result: any; stderr: string; requests: LoggedRequest[]; marker: string[] };

/** One -p run: the model calls `calls` in one message, then says `final`. */
async function runCalls(o: {
  cwd: string;
  home?: string;
  calls: Array<{ id: string; name: string; input: Record<string, unknown> }>;
  final?: string;
  args?: string[];
  env?: Record<string, string>;
}): Promise<Run> {
  const marker = join(o.cwd, "..", `marker-${Math.random().toString(36).slice(2)}.log`);
  const before = fake.requests.length;
  fake.push({ content: o.calls.map((c) => ({ type: "tool_use" as const, id: c.id, name: c.name, input: c.input })) });
  fake.push({ content: [{ type: "text", text: o.final ?? "I stopped." }] });
  const env = isolatedEnv({ ...TRUST_WORKSPACE,
    ...fakeApiEnv(fake),
    ...(o.home ? { HOME: o.home } : {}),
    PATH: `${shims}:${process.env.PATH}`,
    YOKE_TEST_MARKER: marker,
    YOKE_RETRY_BASE_MS: "5",
    ...o.env,
  });
  const r = await runYoke(["-p", "go", "--output-format", "json", ...(o.args ?? [])], { cwd: o.cwd, env });
  let result: any = null;
  try {
    result = JSON.parse(r.stdout);
  } catch {
    /* asserted by the caller through code/stderr */
  }
  const marks = existsSync(marker) ? readFileSync(marker, "utf8").trim().split("\n").filter(Boolean) : [];
  return { code: r.code, result, stderr: r.stderr, requests: fake.requests.slice(before), marker: marks };
}

const resultsById = (req: LoggedRequest) => new Map(toolResultsOf(req).map((t) => [t.tool_use_id, t]));

describe("denied calls never run (corpus sample through -p, contracts §3.4)", () => {
  const SECRET_SAMPLE = [
    "cat .env", "cat via symlink", "cat traversal", "cat quoted", "cp out", "output redirection", "tee into .env",
    "command substitution", "sh -c", "head with count", "base64", "timeout wrapper", "pipe into shell", "xargs",
    "Read plain", "Read via symlink", "Read traversal", "Write .env", "Edit .env", "Write via symlink", "Write new file in denied dir",
  ];
  const NO_RM_SAMPLE = ["rm plain", "rm absolute binary", "rm via sh -c", "rm via xargs", "rm via find -exec", "rm after allowed", "rm via timeout"];

  test(`${SECRET_SAMPLE.length} attempts on .env and secrets/: all denied, nothing executed, files untouched, exit 0`, async () => {
    const cases = byName(BYPASS_ATTEMPTS, SECRET_SAMPLE);
    const p = corpusProject(cases[0]!.rules);
    const calls = cases.map((c, i) => ({ id: `toolu_deny_${i}`, name: c.tool, input: modelInput(c, p.cwd) }));
    const r = await runCalls({ cwd: p.cwd, home: p.home, calls });
    expect(r.stderr).toBe("");
    expect(r.marker).toEqual([]);
    expect(readFileSync(join(p.cwd, ".env"), "utf8")).toBe("TOKEN=x");
    expect(existsSync(join(p.cwd, "secrets", "new.txt"))).toBe(false);
    expect(existsSync("/tmp/leak")).toBe(false);
    expect(r.result).toMatchObject({ subtype: "success", is_error: false, result: "I stopped." });
    expect(r.result.permission_denials.map((d: any) => d.tool_use_id)).toEqual(calls.map((c) => c.id));
    const results = resultsById(r.requests[1]!);
    cases.forEach((c, i) => {
      const t = results.get(`toolu_deny_${i}`)!;
      expect({ name: c.name, is_error: t.is_error }).toEqual({ name: c.name, is_error: true });
      expect(t.text).not.toContain("TOKEN=x");
      if (c.expect === "deny") expect(t.text).toMatch(/rule (Read\(\.env\)|Read\(\.\/secrets\/\*\*\)|Edit\(\.env\))/);
      else expect(t.text).toContain("no user is present in this non-interactive run");
    });
    // The model gave up right after denials: still exit 0, as Claude Code (exit 3 only with --exit-code-on-denial).
    expect(r.code).toBe(0);
  });

  test(`${NO_RM_SAMPLE.length} ways to run a denied rm: the build folder survives`, async () => {
    const cases = byName(BYPASS_ATTEMPTS, NO_RM_SAMPLE);
    const p = corpusProject(cases[0]!.rules);
    mkdirSync(join(p.cwd, "build"));
    writeFileSync(join(p.cwd, "build", "keep"), "k");
    writeFileSync(join(p.cwd, "x"), "x");
    const calls = cases.map((c, i) => ({ id: `toolu_rm_${i}`, name: c.tool, input: modelInput(c, p.cwd) }));
    const r = await runCalls({ cwd: p.cwd, home: p.home, calls });
    expect(r.marker.filter((m) => m.startsWith("rm") || m.startsWith("xargs") || m.startsWith("find"))).toEqual([]);
    expect(readFileSync(join(p.cwd, "build", "keep"), "utf8")).toBe("k");
    expect(existsSync(join(p.cwd, "x"))).toBe(true);
    expect(r.result.permission_denials).toHaveLength(cases.length);
    for (const t of toolResultsOf(r.requests[1]!)) expect(t.text).toContain("Bash(rm:*)");
    expect(r.code).toBe(0); // exit 3 only with --exit-code-on-denial
  });
});

describe("allowed calls run (ordinary corpus sample through -p)", () => {
  test("reads, read-only pipelines, edits and writes allowed by rules all execute; exit 0", async () => {
    const cases = byName(ORDINARY_ALLOWED, ["Read file", "cat readme", "head", "wc", "ls src", "pipeline read-only", "sort uniq", "Edit in src", "Write new in src"]);
    const p = corpusProject(cases[0]!.rules);
    const calls = cases.map((c, i) => ({ id: `toolu_ok_${i}`, name: c.tool, input: modelInput(c, p.cwd) }));
    const r = await runCalls({ cwd: p.cwd, home: p.home, calls, final: "All done." });
    expect(r.stderr).toBe("");
    expect(r.result).toMatchObject({ subtype: "success", is_error: false, result: "All done.", permission_denials: [] });
    expect(r.code).toBe(0);
    const programs = r.marker.map((m) => m.split(" ")[0]);
    for (const prog of ["cat", "head", "wc", "ls", "grep", "sort", "uniq"]) expect(programs).toContain(prog);
    const results = resultsById(r.requests[1]!);
    for (const [i, c] of cases.entries()) expect({ name: c.name, is_error: results.get(`toolu_ok_${i}`)!.is_error }).toEqual({ name: c.name, is_error: false });
    expect(readFileSync(join(p.cwd, "src", "app.ts"), "utf8")).toBe("y");
    expect(readFileSync(join(p.cwd, "src", "new", "deep.ts"), "utf8")).toBe("y");
  });
});

describe("headless never waits (issue 5 §6)", () => {
  test("an ask rule under -p ends at once with a denial naming the rule; a later success means exit 0", async () => {
    const p = corpusProject({ ask: ["Bash(touch:*)"], allow: ["Bash(ls:*)"] });
    fake.push({ content: [{ type: "tool_use", id: "toolu_ask", name: "Bash", input: { command: "touch made-it" } }] });
    fake.push({ content: [{ type: "tool_use", id: "toolu_then", name: "Bash", input: { command: "ls" } }] });
    fake.push({ content: [{ type: "text", text: "Listed instead." }] });
    const before = fake.requests.length;
    const env = isolatedEnv({ ...TRUST_WORKSPACE, ...fakeApiEnv(fake), HOME: p.home, PATH: `${shims}:${process.env.PATH}`, YOKE_TEST_MARKER: join(p.root, "m.log") });
    const r = await runYoke(["-p", "go", "--output-format", "stream-json", "--verbose"], { cwd: p.cwd, env });
    expect(r.timedOut).toBe(false);
    expect(existsSync(join(p.cwd, "made-it"))).toBe(false);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const denied = lines.find((l) => l.type === "system" && l.subtype === "permission_denied");
    expect(denied).toMatchObject({ tool_name: "Bash", tool_use_id: "toolu_ask", tool_input: { command: "touch made-it" } });
    const tr = toolResultsOf(fake.requests[before + 1]!)[0]!;
    expect(tr.is_error).toBe(true);
    expect(tr.text).toContain("Bash(touch:*)");
    expect(tr.text).toContain(p.settingsFile);
    expect(lines.at(-1)).toMatchObject({ type: "result", subtype: "success", permission_denials: [{ tool_use_id: "toolu_ask" }] });
    expect(r.code).toBe(0);
  });

  test("the model gives up right after a denial → exit 0 as Claude Code; exit 3 with --exit-code-on-denial; result success with the denial listed", async () => {
    for (const [args, code] of [[[], 0], [["--exit-code-on-denial"], 3]] as const) {
      const cwd = tempDir();
      const r = await runCalls({ cwd, calls: [{ id: "toolu_w", name: "Write", input: { file_path: join(cwd, "a.txt"), content: "a" } }], final: "Blocked.", args: [...args] });
      expect(r.code).toBe(code);
      expect(r.result).toMatchObject({ subtype: "success", is_error: false });
      expect(r.result.permission_denials).toHaveLength(1);
      expect(existsSync(join(cwd, "a.txt"))).toBe(false);
    }
  });
});
