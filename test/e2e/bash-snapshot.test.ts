// Issue 21 (tool turns), in the compiled binary: a Bash call's git snapshot writes its tree and ref while the command
// runs (src/session/git-snapshot.ts stageWorktree), so the run's end must wait for it: the ref and the transcript line
// that a later rewind reads are there after exit. The ref's write is held by a ref lock (git retries a locked ref for
// core.filesRefLockTimeout) until the run has printed its answer: barriers, no timing. Beyond Claude Code (contracts §5.4).
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke, spawnYoke, TRUST_WORKSPACE } from "../helpers/binary.ts";
import { git, gitRepo, tempDir } from "../helpers/tmp.ts";
import { sessionFile, useFakeAnthropic } from "../helpers/e2e.ts";
import { waitFor } from "../helpers/wait-for.ts";

const fake = useFakeAnthropic();

test("a -p run whose last tool call is Bash exits only after its snapshot's ref and transcript line are written; the rewind then restores", async () => {
  const cwd = gitRepo(tempDir());
  writeFileSync(join(cwd, "tracked.txt"), "original\n");
  git(cwd, "add", "-A");
  git(cwd, "commit", "-qm", "tracked");
  git(cwd, "config", "core.filesRefLockTimeout", "60000");
  await Bun.write(join(cwd, ".claude/settings.json"), JSON.stringify({ permissions: { allow: ["Bash"] } }));
  const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5", ...TRUST_WORKSPACE });
  const id = crypto.randomUUID();
  const ref = `refs/yoke/checkpoints/${id}/0`;
  const lock = join(cwd, ".git", `${ref}.lock`);
  mkdirSync(join(lock, ".."), { recursive: true });
  writeFileSync(lock, "");
  fake.push(
    { content: [{ type: "tool_use", name: "Bash", input: { command: "echo changed-by-bash > tracked.txt" } }] },
    { content: [{ type: "text", text: "BASH-TURN-DONE" }] },
  );
  const p = spawnYoke(["-p", "change it", "--session-id", id], { cwd, env });
  void p.stdin.end();
  let out = "";
  const reading = (async () => {
    for await (const c of p.stdout) out += new TextDecoder().decode(c);
  })();
  // The answer is printed while the snapshot's ref is still held: the run is in its end now.
  await waitFor(() => out.includes("BASH-TURN-DONE"), "the run's answer");
  expect(readFileSync(join(cwd, "tracked.txt"), "utf8")).toBe("changed-by-bash\n");
  rmSync(lock);
  expect(await p.exited).toBe(0);
  await reading;

  expect(git(cwd, "cat-file", "-t", ref)).toBe("tree");
  const lines = readFileSync(sessionFile(env, id), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  expect(lines.filter((l) => l.type === "file-history-snapshot" && l.gitCheckpoint).map((l) => l.gitCheckpoint.ref)).toEqual([ref]);
  const turn = lines.find((l) => l.type === "user" && JSON.stringify(l.message.content).includes("change it"));
  const r = await runYoke(["rewind", id, "--to", turn.uuid], { cwd, env });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(readFileSync(join(cwd, "tracked.txt"), "utf8")).toBe("original\n");
}, 60_000);
