// End-to-end sessions (issue 7) in the compiled binary: resume, continue, fork, rewind, SIGTERM, compaction.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, type LoggedRequest } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke, spawnYoke, TRUST_WORKSPACE } from "../helpers/binary.ts";
import { git, gitRepo, tempDir } from "../helpers/tmp.ts";
import { sessionFile, useFakeAnthropic } from "../helpers/e2e.ts";
import { waitFor } from "../helpers/wait-for.ts";

const fake = useFakeAnthropic();

const envFor = (extra: Record<string, string> = {}) => isolatedEnv({ ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5", ...extra });

const lines = (p: string): any[] => readFileSync(p, "utf8").trim().split("\n").map((l) => JSON.parse(l));
const text = (req: LoggedRequest | undefined): string => JSON.stringify(req?.body?.messages ?? []);
const firstUserText = (req: LoggedRequest): string => {
  const c = req.body.messages[0].content;
  return typeof c === "string" ? c : c.map((b: any) => b.text ?? "").join("\n");
};

async function run(args: string[], cwd: string, env: Record<string, string>) {
  const r = await runYoke([...args, "--output-format", "json"], { cwd, env });
  if (r.code !== 0) throw new Error(`yoke ${args.join(" ")} exited ${r.code}: ${r.stderr}${r.stdout}`);
  return { ...r, json: JSON.parse(r.stdout.trim().split("\n").at(-1)!) };
}

describe("resume, continue, fork (contracts §5.3)", () => {
  test("--resume ID and --continue carry every earlier turn; --fork-session gets a new id, SessionStart source fork, old file untouched", async () => {
    const cwd = tempDir();
    const env = envFor({ ...TRUST_WORKSPACE });
    const hookLog = join(cwd, "hook.log");
    writeFileSync(join(cwd, "CLAUDE.md"), "Project rule: be brief.\n");
    writeFileSync(join(cwd, "hook.sh"), `#!/bin/sh\ncat >> ${hookLog}\necho >> ${hookLog}\n`, { mode: 0o755 });
    await Bun.write(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: join(cwd, "hook.sh") }] }] } }));
    fake.push({ content: [{ type: "text", text: "ALPHA-REPLY" }] });
    const a = await run(["-p", "first prompt"], cwd, env);
    const id = a.json.session_id as string;

    fake.push({ content: [{ type: "text", text: "BETA-REPLY" }] });
    const b = await run(["-p", "second prompt", "--resume", id], cwd, env);
    expect(b.json.session_id).toBe(id);
    expect(text(fake.requests.at(-1))).toContain("first prompt");
    expect(text(fake.requests.at(-1))).toContain("ALPHA-REPLY");

    fake.push({ content: [{ type: "text", text: "GAMMA-REPLY" }] });
    const c = await run(["-p", "third prompt", "--continue"], cwd, env);
    expect(c.json.session_id).toBe(id);
    const seen = text(fake.requests.at(-1));
    for (const s of ["first prompt", "ALPHA-REPLY", "second prompt", "BETA-REPLY", "third prompt"]) expect(seen).toContain(s);
    // The instruction files travel once, in the conversation's first prompt, not again on every resumed run.
    expect(seen.split("Project rule: be brief.").length - 1).toBe(1);

    const orig = sessionFile(env, id);
    const before = readFileSync(orig);
    fake.push({ content: [{ type: "text", text: "FORK-REPLY" }] });
    const f = await run(["-p", "fork prompt", "--resume", id, "--fork-session"], cwd, env);
    expect(f.json.session_id).not.toBe(id);
    expect(text(fake.requests.at(-1))).toContain("GAMMA-REPLY");
    expect(readFileSync(orig).equals(before)).toBe(true);
    const forked = lines(sessionFile(env, f.json.session_id));
    expect(forked.some((l) => l.type === "assistant" && JSON.stringify(l.message).includes("FORK-REPLY"))).toBe(true);
    const sources = readFileSync(hookLog, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l).source);
    expect(sources).toEqual(["startup", "resume", "resume", "fork"]);

    // yoke sessions list / show
    const list = await runYoke(["sessions", "list", "--json"], { cwd, env });
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout);
    expect(rows.map((r: any) => r.id).sort()).toEqual([id, f.json.session_id].sort());
    const mine = rows.find((r: any) => r.id === id);
    expect(mine).toMatchObject({ firstPrompt: "first prompt", turns: 3 });
    const table = await runYoke(["sessions", "list"], { cwd, env });
    expect(table.stdout).toContain(id);
    expect(table.stdout).toContain("first prompt");
    const show = await runYoke(["sessions", "show", id.slice(0, 8)], { cwd, env });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("BETA-REPLY");
    expect(show.stdout).toContain("[");
    const bad = await runYoke(["sessions", "show", "nope-nope"], { cwd, env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("nope-nope");
  });
});

describe("rewind (contracts §5.4, issue 7 item 3)", () => {
  test("files (Write and a Bash change in a git repo) and conversation go back to before a user message", async () => {
    const cwd = gitRepo(tempDir());
    writeFileSync(join(cwd, "tracked.txt"), "original\n");
    git(cwd, "add", "-A");
    git(cwd, "commit", "-qm", "tracked");
    await Bun.write(join(cwd, ".claude/settings.json"), JSON.stringify({ permissions: { allow: ["Bash", "Write"] } }));
    const env = envFor({ ...TRUST_WORKSPACE });
    fake.push({ content: [{ type: "text", text: "TURN-ONE-DONE" }] });
    const a = await run(["-p", "turn one"], cwd, env);
    const id = a.json.session_id as string;
    const made = join(cwd, "made.txt");
    fake.push(
      { content: [{ type: "tool_use", name: "Write", input: { file_path: made, content: "new file\n" } }] },
      { content: [{ type: "tool_use", name: "Bash", input: { command: "echo changed-by-bash > tracked.txt" } }] },
      { content: [{ type: "text", text: "TURN-TWO-DONE" }] },
    );
    await run(["-p", "turn two", "--resume", id], cwd, env);
    expect(readFileSync(made, "utf8")).toBe("new file\n");
    expect(readFileSync(join(cwd, "tracked.txt"), "utf8")).toBe("changed-by-bash\n");
    const statusBefore = git(cwd, "status", "--porcelain");

    const listing = await runYoke(["rewind", id], { cwd, env });
    expect(listing.code).toBe(0);
    expect(listing.stdout).toContain("turn one");
    expect(listing.stdout).toContain("turn two");
    const turnTwo = lines(sessionFile(env, id)).find((l) => l.type === "user" && JSON.stringify(l.message.content).includes("turn two"));
    expect(listing.stdout).toMatch(new RegExp(`${turnTwo.uuid}.*checkpoint: 1 file\\(s\\), 1 git snapshot`));

    const dry = await runYoke(["rewind", id, "--to", turnTwo.uuid, "--dry-run"], { cwd, env });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`would delete ${made}`);
    expect(dry.stdout).toContain(`would restore ${join(cwd, "tracked.txt")}`);
    expect(existsSync(made)).toBe(true);

    const convOnly = await runYoke(["rewind", id, "--to", turnTwo.uuid, "--conversation", "--json"], { cwd, env });
    expect(convOnly.code).toBe(0);
    const cj = JSON.parse(convOnly.stdout);
    expect(cj.files).toBeUndefined();
    expect(cj.conversation.command).toContain(`--resume ${id} --resume-session-at ${cj.conversation.leafUuid}`);
    expect(existsSync(made)).toBe(true);
    const unknown = await runYoke(["rewind", id, "--to", "00000000-0000-4000-8000-000000000000"], { cwd, env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no entry with uuid 00000000-0000-4000-8000-000000000000");

    const r = await runYoke(["rewind", id, "--to", turnTwo.uuid], { cwd, env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(existsSync(made)).toBe(false);
    expect(readFileSync(join(cwd, "tracked.txt"), "utf8")).toBe("original\n");
    expect(git(cwd, "stash", "list")).toBe("");
    expect(statusBefore).toContain("tracked.txt");
    expect(git(cwd, "status", "--porcelain")).toBe("?? .claude/");
    const cmd = /yoke -p --resume (\S+) --resume-session-at (\S+)/.exec(r.stdout);
    expect(cmd).not.toBeNull();
    expect(cmd![1]).toBe(id);

    // Continuing from the printed leaf: the model sees turn one but not turn two.
    fake.push({ content: [{ type: "text", text: "AFTER-REWIND" }] });
    await run(["-p", "turn two again", "--resume", id, "--resume-session-at", cmd![2]!], cwd, env);
    const seen = text(fake.requests.at(-1));
    expect(seen).toContain("TURN-ONE-DONE");
    expect(seen).not.toContain("TURN-TWO-DONE");
    expect(seen).toContain("turn two again");
  });

  test("--rewind-files UUID with --resume restores before the turn runs", async () => {
    const cwd = tempDir();
    await Bun.write(join(cwd, ".claude/settings.json"), JSON.stringify({ permissions: { allow: ["Write"] } }));
    const env = envFor({ ...TRUST_WORKSPACE });
    const file = join(cwd, "f.txt");
    writeFileSync(file, "v1\n");
    // Write needs a prior read of an existing file.
    fake.push(
      { content: [{ type: "tool_use", name: "Read", input: { file_path: file } }] },
      { content: [{ type: "tool_use", name: "Write", input: { file_path: file, content: "v2\n" } }] },
      { content: [{ type: "text", text: "wrote" }] },
    );
    const id = (await run(["-p", "overwrite"], cwd, env)).json.session_id as string;
    expect(readFileSync(file, "utf8")).toBe("v2\n");
    const firstUser = lines(sessionFile(env, id)).find((l) => l.type === "user");
    fake.push({ content: [{ type: "text", text: "after files rewind" }] });
    const r = await runYoke(["-p", "go on", "--resume", id, "--rewind-files", firstUser.uuid], { cwd, env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`restored ${file}`);
    expect(readFileSync(file, "utf8")).toBe("v1\n");
    expect(r.stdout).toContain("after files rewind");
  });
});

describe("signals", () => {
  test("SIGTERM mid-run exits 143 and leaves a resumable transcript", async () => {
    const cwd = tempDir();
    const env = envFor();
    fake.push({ content: [{ type: "text", text: "DONE-FIRST" }] });
    const a = await run(["-p", "before the signal"], cwd, env);
    const id = a.json.session_id as string;
    const n = fake.requests.length;
    // The answer never comes (a 5 s delay was outrun by a slow kill under load): the run is mid-turn at the signal.
    fake.push({ fault: "hang" });
    const p = spawnYoke(["-p", "slow one", "--resume", id], { cwd, env });
    await waitFor(() => fake.requests.length > n, "the resumed run's model request");
    expect(fake.requests.length).toBe(n + 1);
    p.kill("SIGTERM");
    expect(await p.exited).toBe(143);
    fake.push({ content: [{ type: "text", text: "RESUMED" }] });
    const r = await run(["-p", "after the signal", "--resume", id], cwd, env);
    expect(r.json.result).toBe("RESUMED");
    const seen = text(fake.requests.at(-1));
    expect(seen).toContain("DONE-FIRST");
    expect(seen).toContain("slow one");
    expect(seen).toContain("after the signal");
  });
});

describe("compaction (seed 000, internals §6)", () => {
  test("/compact with a focus: PreCompact hook, summarizing call with focus and Compact Instructions, boundary + summary in the transcript, resume starts from the summary", async () => {
    const cwd = tempDir();
    const env = envFor({ ...TRUST_WORKSPACE });
    const hookLog = join(cwd, "pre.log");
    writeFileSync(join(cwd, "pre.sh"), `#!/bin/sh\ncat >> ${hookLog}\necho >> ${hookLog}\n`, { mode: 0o755 });
    await Bun.write(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: { PreCompact: [{ hooks: [{ type: "command", command: join(cwd, "pre.sh") }] }] } }));
    writeFileSync(join(cwd, "CLAUDE.md"), "# Project\n\nUse tabs.\n\n## Compact Instructions\n\nAlways keep the ticket number XYZ-42.\n\n## Other\n\nignored\n");
    const id = (await (async () => {
      fake.push({ content: [{ type: "text", text: "OLD-ANSWER-1" }] });
      return (await run(["-p", "old question 1"], cwd, env)).json.session_id as string;
    })());
    for (let i = 2; i <= 4; i++) {
      fake.push({ content: [{ type: "text", text: `OLD-ANSWER-${i}` }] });
      await run(["-p", `old question ${i}`, "--resume", id], cwd, env);
    }
    fake.push({ content: [{ type: "text", text: "<analysis>scratch</analysis>\n<summary>SUMMARY-OF-OLD-WORK</summary>" }] });
    const c = await run(["-p", "/compact focus on the parser", "--resume", id], cwd, env);
    expect(c.json.result).toContain("Compacted");
    const req = fake.requests.at(-1)!;
    const asked = text(req);
    expect(asked).toContain("Focus requested for this compaction: focus on the parser");
    expect(asked).toContain("Always keep the ticket number XYZ-42.");
    const extra = asked.slice(asked.indexOf("Additional instructions:"));
    expect(extra).toContain("XYZ-42");
    expect(extra).not.toContain("ignored");
    expect(req.body.system[0].text).toContain("hand-over note");
    const pre = JSON.parse(readFileSync(hookLog, "utf8").trim());
    expect(pre).toMatchObject({ hook_event_name: "PreCompact", trigger: "manual", custom_instructions: "focus on the parser" });

    const file = lines(sessionFile(env, id));
    const bi = file.findIndex((l) => l.type === "system" && l.subtype === "compact_boundary");
    expect(bi).toBeGreaterThan(0);
    expect(file[bi]).toMatchObject({ parentUuid: null, compactMetadata: { trigger: "manual" } });
    expect(file[bi + 1]).toMatchObject({ type: "user", isCompactSummary: true, parentUuid: file[bi].uuid });
    expect(JSON.stringify(file[bi + 1].message)).toContain("Summary:\\nSUMMARY-OF-OLD-WORK");
    // The full earlier history stays in the file.
    expect(JSON.stringify(file.slice(0, bi))).toContain("old question 1");

    fake.push({ content: [{ type: "text", text: "NEW-ANSWER" }] });
    await run(["-p", "new question", "--resume", id], cwd, env);
    const next = fake.requests.at(-1)!;
    expect(firstUserText(next)).toContain("SUMMARY-OF-OLD-WORK");
    expect(text(next)).not.toContain("old question 1");
    expect(text(next)).toContain("old question 4"); // kept verbatim (last 4 messages)
    expect(text(next)).toContain("new question");
  }, 40_000);

  test("a long scripted session compacts automatically and carries on from the summary (stream-json shows status and boundary)", async () => {
    const cwd = tempDir();
    // Many short lines: Read cuts long lines, which would shrink the outputs.
    const big = (n: number) => `${"lorem ipsum dolor sit amet\n".repeat(n)}`;
    // Probe the size of a bare request to place the threshold just above it.
    const probeEnv = envFor();
    fake.push({ content: [{ type: "text", text: "probe" }] });
    await run(["-p", "probe"], cwd, probeEnv);
    const base = fake.requests.at(-1)!.body;
    const baseTokens = Math.ceil(JSON.stringify({ s: base.system, m: base.messages, t: base.tools }).length / 4);
    // The window is pinned at 200K (claude-sonnet-5-5 has 1M): effective 180,000; the threshold lands ~6,000 tokens above a bare request.
    const pct = Math.ceil(((baseTokens + 8000) * 100) / 180_000);
    const env = envFor({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: String(pct), CLAUDE_CODE_AUTO_COMPACT_WINDOW: "200000" });
    const f1 = join(cwd, "a.txt");
    const f2 = join(cwd, "b.txt");
    writeFileSync(f1, `${big(600)}\n`);
    writeFileSync(f2, `${big(600)}\n`);
    await Bun.write(join(cwd, ".claude/settings.json"), JSON.stringify({ permissions: { allow: ["Read"] } }));
    const early = join(cwd, "early.txt");
    writeFileSync(early, "EARLY-FILE-BODY\n");
    fake.push(
      { content: [{ type: "tool_use", name: "Read", input: { file_path: early } }] },
      { content: [{ type: "text", text: `EARLY-REPLY ${big(300)}` }] },
    );
    const a = await run(["-p", "EARLY-PROMPT"], cwd, env);
    const id = a.json.session_id as string;
    const n0 = fake.requests.length;
    fake.push(
      { content: [{ type: "tool_use", name: "Read", input: { file_path: f1 } }] },
      { content: [{ type: "tool_use", name: "Read", input: { file_path: f2 } }] },
      { content: [{ type: "text", text: "<summary>AUTO-SUMMARY-TEXT</summary>" }] },
      { content: [{ type: "text", text: "FINISHED-AFTER-COMPACTION" }] },
    );
    const r = await runYoke(["-p", "LATE-PROMPT", "--resume", id, "--output-format", "stream-json", "--verbose"], { cwd, env });
    expect(r.code).toBe(0);
    const out = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(out.some((l) => l.type === "system" && l.subtype === "status" && l.status === "compacting")).toBe(true);
    const boundary = out.find((l) => l.type === "system" && l.subtype === "compact_boundary");
    expect(boundary?.compact_metadata?.trigger).toBe("auto");
    expect(boundary?.compact_metadata?.pre_tokens).toBeGreaterThan(0);
    expect(out.at(-1)).toMatchObject({ type: "result", result: "FINISHED-AFTER-COMPACTION" });
    const reqs = fake.requests.slice(n0);
    const summaryReq = reqs.find((q) => text(q).includes("hand-over note"));
    expect(summaryReq).toBeDefined();
    const after = reqs.at(-1)!;
    expect(firstUserText(after)).toContain("AUTO-SUMMARY-TEXT");
    expect(text(after)).not.toContain("EARLY-PROMPT");
    // the re-read file comes back with the summary
    expect(firstUserText(after)).toContain(`Content of ${early}`);
    expect(firstUserText(after)).toContain("EARLY-FILE-BODY");
    // files still visible as Read results in the kept messages are not repeated
    expect(firstUserText(after)).not.toContain(`Content of ${f2}`);
    expect(fake.pending).toBe(0);
    const file = lines(sessionFile(env, id));
    expect(file.some((l) => l.subtype === "compact_boundary" && l.compactMetadata?.trigger === "auto")).toBe(true);
  }, 40_000);
});

describe("transcripts never hold credential-shaped strings (user-demand #20)", () => {
  test("a key a tool printed reaches the model but is written as [REDACTED]; the setting switches it off", async () => {
    const key = "sk-ant-api03-SECRETSECRETSECRET1234";
    for (const [extra, redacted] of [[[], true], [["--settings", '{"redactTranscripts":false}'], false]] as const) {
      const cwd = tempDir();
      const env = envFor();
      fake.push({ content: [{ type: "tool_use", name: "Bash", input: { command: `echo ${key}` } }] }, { content: [{ type: "text", text: "seen" }] });
      const before = fake.requests.length;
      const r = await run(["-p", "print it", "--allowedTools", "Bash", ...extra], cwd, env);
      expect(r.code).toBe(0);
      expect(JSON.stringify(fake.requests[before + 1]!.body.messages)).toContain(key);
      const file = readFileSync(sessionFile(env, r.json.session_id), "utf8");
      expect(file.includes(key)).toBe(!redacted);
      expect(file.includes("[REDACTED]")).toBe(redacted);
    }
  });
});
