import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { collectGitInfo, cutGitStatus, statusBranch } from "../../src/context/git-info.ts";
import { buildSystemPrompt } from "../../src/context/system-prompt.ts";
import { estimateTokens, type GitInfo } from "../../src/context/types.ts";
import { tempRoot } from "./helpers.ts";

const ALL_TOOLS = ["Read", "Edit", "Write", "Bash", "Grep", "Glob", "Agent", "TodoWrite", "WebFetch", "WebSearch"];
const date = new Date("2026-04-05T12:00:00Z");
const git: GitInfo = { root: "/r", branch: "feat/x", mainBranch: "main", status: "## feat/x\n M a.ts", recentCommits: "abc123 first" };

async function sh(cwd: string, ...cmd: string[]) {
  const p = Bun.spawn(cmd, { cwd, stdout: "ignore", stderr: "pipe", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t", GIT_CONFIG_GLOBAL: "/dev/null" } });
  if ((await p.exited) !== 0) throw new Error(`${cmd.join(" ")}: ${await new Response(p.stderr).text()}`);
}

describe("buildSystemPrompt", () => {
  test("default sections in order, environment and git filled in", () => {
    const s = buildSystemPrompt({ cwd: "/r/app", model: "claude-sonnet-4-6", date, git, toolNames: ALL_TOOLS, memory: { dir: "/m/" } });
    expect(s.map((x) => x.name)).toEqual(["identity", "how-to-work", "tools", "safety", "memory", "environment", "git"]);
    const env = s.find((x) => x.name === "environment")!.text;
    expect(env).toContain("Working directory: /r/app");
    expect(env).toContain("Today's date: 2026-04-05");
    expect(env).toContain("Model: claude-sonnet-4-6");
    expect(env).toContain(`Platform: ${process.platform}`);
    const g = s.find((x) => x.name === "git")!.text;
    expect(g).toContain("Current branch: feat/x");
    expect(g).toContain("Main branch (usual target for pull requests): main");
    expect(g).toContain(" M a.ts");
    expect(g).toContain("abc123 first");
  });

  test("the whole default prompt stays well under 3,000 tokens", () => {
    const s = buildSystemPrompt({ cwd: "/r", model: "m", date, git, toolNames: ALL_TOOLS, memory: { dir: "/m/" } });
    const tokens = estimateTokens(s.map((x) => x.text).join("\n\n"));
    expect(tokens).toBeLessThan(3000);
  });

  test("tool guidance mentions only offered tools, and disappears without tools", () => {
    const s = buildSystemPrompt({ cwd: "/r", model: "m", date, toolNames: ["Read", "Grep"] });
    const tools = s.find((x) => x.name === "tools")!.text;
    expect(tools).toContain("Grep");
    expect(tools).not.toContain("Bash");
    expect(buildSystemPrompt({ cwd: "/r", model: "m", date, toolNames: [] }).map((x) => x.name)).not.toContain("tools");
  });

  test("memory section names the directory, the four types and the two-step save", () => {
    const text = buildSystemPrompt({ cwd: "/r", model: "m", date, toolNames: [], memory: { dir: "/mem/dir/" } }).find((x) => x.name === "memory")!.text;
    for (const w of ["/mem/dir/", "user:", "feedback:", "project:", "reference:", "MEMORY.md", "description:", "type:", "Do not save"]) expect(text).toContain(w);
    expect(buildSystemPrompt({ cwd: "/r", model: "m", date, toolNames: [] }).map((x) => x.name)).not.toContain("memory");
  });

  test("--system-prompt replaces our sections; plugin sections and --append-system-prompt follow", () => {
    const s = buildSystemPrompt({
      cwd: "/r",
      model: "m",
      date,
      git,
      toolNames: ALL_TOOLS,
      memory: { dir: "/m/" },
      customSystemPrompt: "You are a pirate.",
      appendSystemPrompt: "Always say arr.",
      extraSections: [{ name: "attribution", text: "Sign commits." }, { name: "empty", text: "  " }],
    });
    expect(s).toEqual([
      { name: "custom", text: "You are a pirate." },
      { name: "attribution", text: "Sign commits." },
      { name: "append", text: "Always say arr." },
    ]);
  });

  test("append and plugin sections with the default prompt: plugins before environment, append last", () => {
    const s = buildSystemPrompt({ cwd: "/r", model: "m", date, toolNames: [], appendSystemPrompt: "extra", extraSections: [{ name: "p", text: "plugin" }] });
    expect(s.map((x) => x.name)).toEqual(["identity", "how-to-work", "safety", "p", "environment", "append"]);
  });
});

describe("collectGitInfo (real git repos)", () => {
  test("outside a repository → null", async () => {
    expect(await collectGitInfo(tempRoot())).toBeNull();
  });

  test("claw-code 6/7: status with branch line and untracked files, recent commits, main branch", async () => {
    const R = tempRoot();
    await sh(R, "git", "init", "-q", "-b", "main");
    for (const n of ["first", "second", "third"]) {
      writeFileSync(join(R, `${n}.txt`), n);
      await sh(R, "git", "add", ".");
      await sh(R, "git", "commit", "-q", "-m", `${n} commit`);
    }
    await sh(R, "git", "checkout", "-q", "-b", "feature");
    writeFileSync(join(R, "CLAUDE.md"), "rules");
    writeFileSync(join(R, "d.txt"), "d");
    await sh(R, "git", "add", "d.txt");
    const info = await collectGitInfo(R);
    expect(info?.root).toBe(R);
    expect(info?.branch).toBe("feature");
    expect(info?.mainBranch).toBe("main");
    expect(info?.status).toContain("## feature");
    expect(info?.status).toContain("?? CLAUDE.md");
    expect(info?.status).toContain("A  d.txt");
    expect(info?.recentCommits.split("\n").map((l) => l.replace(/^\w+ /, ""))).toEqual(["third commit", "second commit", "first commit"]);
  });

  test("main branch: origin's HEAD wins over local main/master; without a remote, a local main or master; else none", async () => {
    const up = tempRoot();
    await sh(up, "git", "init", "-q", "-b", "trunk");
    writeFileSync(join(up, "a.txt"), "a");
    await sh(up, "git", "add", ".");
    await sh(up, "git", "commit", "-q", "-m", "first");
    await sh(up, "git", "branch", "master");
    const R = tempRoot();
    await sh(R, "git", "clone", "-q", up, "clone");
    const clone = join(R, "clone");
    await sh(clone, "git", "checkout", "-q", "-b", "master", "origin/master");
    expect((await collectGitInfo(clone))?.mainBranch).toBe("trunk");
    // No origin HEAD: the local branch named master.
    await sh(clone, "git", "remote", "set-head", "origin", "-d");
    expect((await collectGitInfo(clone))?.mainBranch).toBe("master");
    // Neither: none.
    expect((await collectGitInfo(up))?.mainBranch).toBe("master");
    await sh(up, "git", "branch", "-q", "-D", "master");
    expect((await collectGitInfo(up))?.mainBranch).toBeNull();
  });

  test("status is cut at 2,000 characters on a line boundary", () => {
    const long = Array.from({ length: 200 }, (_, i) => `?? file-${i}.txt`).join("\n");
    const cut = cutGitStatus(long);
    const body = cut.slice(0, cut.lastIndexOf("\n"));
    expect(body.length).toBeLessThanOrEqual(2000);
    expect(cut).toContain("cut at 2000 characters");
    expect(cutGitStatus("?? a")).toBe("?? a");
  });
});

describe("statusBranch: the branch from status's first line, as git branch --show-current names it", () => {
  test("tracking, plain, unborn (both wordings), detached, none", () => {
    expect(statusBranch("## main...origin/main [ahead 1]\n M a.txt")).toBe("main");
    expect(statusBranch("## feature/x-1")).toBe("feature/x-1");
    expect(statusBranch("## No commits yet on trunk")).toBe("trunk");
    expect(statusBranch("## Initial commit on trunk")).toBe("trunk");
    expect(statusBranch("## HEAD (no branch)")).toBeNull();
    expect(statusBranch(null)).toBeNull();
    expect(statusBranch("")).toBeNull();
  });

  test("matches git branch --show-current on a real repository: unborn, detached, on a branch", async () => {
    const R = tempRoot();
    await sh(R, "git", "init", "-q", "-b", "unborn-main");
    expect((await collectGitInfo(R))?.branch).toBe("unborn-main");
    writeFileSync(join(R, "a.txt"), "a");
    await sh(R, "git", "add", ".");
    await sh(R, "git", "commit", "-q", "-m", "first");
    await sh(R, "git", "checkout", "-q", "--detach");
    expect((await collectGitInfo(R))?.branch).toBeNull();
    await sh(R, "git", "checkout", "-q", "-b", "dots.in.name");
    expect((await collectGitInfo(R))?.branch).toBe("dots.in.name");
  });
});
