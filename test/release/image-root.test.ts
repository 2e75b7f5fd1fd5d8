/**
 * Issue 18 point 2: the image's own filesystem works. deploy/image/assemble.sh builds the root the Dockerfile's last
 * stage holds (from this machine's Debian packages, as the rootfs stage does from its own); the tests run in that
 * root alone (bubblewrap, nothing of this machine's / visible): every program finds every library it links, and a
 * whole headless task uses what yoke uses in a container: git (status, add, commit, worktree, log, the checkpoint
 * snapshot before Bash), ripgrep (the Grep tool), bash, busybox's commands, the CA bundle, bubblewrap.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { parseAllDocuments } from "yaml";
import { repoRoot, yokeBin } from "../helpers/binary.ts";
import { gitRepo, tempDir } from "../helpers/tmp.ts";
import { builtPrograms, entrypoint, imageEnv, imageRoot, runInImage, workdir, yokePath } from "../helpers/image-view.ts";

setDefaultTimeout(90_000);

let fake: FakeAnthropic;
beforeAll(async () => {
  yokeBin();
  imageRoot();
  fake = await startFakeAnthropic();
});
afterAll(() => fake.stop());

const apiEnv = () => {
  const e = fakeApiEnv(fake);
  return { ANTHROPIC_API_KEY: e.ANTHROPIC_API_KEY!, ANTHROPIC_BASE_URL: e.ANTHROPIC_BASE_URL! };
};
const sh = (cmd: string, v = { work: tempDir("yoke-img-work-") }) => runInImage([], { PATH: imageEnv.PATH! }, v, ["/bin/sh", "-c", cmd]);

/** Every ELF file of the root, as paths inside it. */
function elfFiles(root: string, rel = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, rel))) {
    const p = join(rel, name);
    const st = lstatSync(join(root, p));
    if (st.isDirectory()) out.push(...elfFiles(root, p));
    else if (st.isFile() && st.size > 4) {
      const fd = openSync(join(root, p), "r");
      const head = Buffer.alloc(4);
      readSync(fd, head, 0, 4, 0);
      closeSync(fd);
      if (head.toString("latin1") === "\x7fELF") out.push(`/${p}`);
    }
  }
  return out;
}

/** The text of the tool_result blocks a request sent back. */
function toolResults(req: { body: any }): string {
  const last = req.body.messages.at(-1);
  return (last.content as any[]).filter((b) => b.type === "tool_result").map((b) => (typeof b.content === "string" ? b.content : b.content.map((c: any) => c.text ?? "").join(""))).join("\n");
}

describe("the image's root, assembled from deploy/image", () => {
  test("it holds the programs yoke runs, and each finds every library it links (nothing of this machine's /)", async () => {
    const root = imageRoot();
    const elfs = elfFiles(root);
    for (const p of ["/usr/local/bin/yoke", "/usr/lib/git-core/git", "/usr/bin/rg", "/usr/bin/bwrap", "/usr/bin/socat", "/usr/bin/bash", "/usr/bin/busybox", "/usr/bin/tini"]) expect(elfs).toContain(p);
    const loader = readdirSync(join(root, "usr/lib64")).find((f) => f.startsWith("ld-linux"))!;
    const r = await sh(elfs.filter((e) => !e.includes("/ld-linux")).map((e) => `/usr/lib64/${loader} --list ${e} >/dev/null 2>&1 || /usr/lib64/${loader} --list ${e} 2>&1 | tail -1`).join("; ") + "; true");
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("");
    // The entrypoint's programs exist where the Dockerfile says, and /bin/sh is busybox.
    for (const p of entrypoint.filter((x) => x.startsWith("/"))) expect(elfs).toContain(p);
    const v = await sh("readlink /bin/sh; git --version; rg --version | head -1; bwrap --version; socat -V | sed -n 2p; bash -c 'echo bash $BASH_VERSION'; id -un");
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^busybox\ngit version 2\.\d+.*\nripgrep \d+.*\nbubblewrap 0\.\d+.*\nsocat version 1\.\d+.*\nbash 5\.\d+.*\nyoke\n$/);
  });

  test("no package manager, no shell history, no caches: the root holds only what files.txt names", () => {
    const root = imageRoot();
    const top = readdirSync(root).sort();
    expect(top).toEqual(["bin", "dev", "etc", "home", "lib", "lib64", "proc", "run", "tmp", "usr", "work"]);
    // hosts: the mount point of the one an engine mounts (test/helpers/image-view.ts), not in the image.
    expect(readdirSync(join(root, "etc")).sort()).toEqual(["group", "hosts", "nsswitch.conf", "passwd", "ssl"]);
    for (const gone of ["usr/bin/apt-get", "usr/bin/dpkg", "usr/bin/perl", "var", "root/.bash_history", "usr/share/doc", "usr/lib/git-core/git-remote-https"]) expect(() => lstatSync(join(root, gone))).toThrow();
    expect(readFileSync(join(root, "etc/passwd"), "utf8")).toContain("yoke:x:10001:10001:yoke:/home/yoke:");
  });

  test("socat is the one deploy/image/socat.sh builds: no OpenSSL, no TCP wrappers, and none of their libraries in the root", async () => {
    const root = imageRoot();
    const libs = readdirSync(join(root, "usr/lib")).filter((d) => d.endsWith("-linux-gnu")).flatMap((d) => readdirSync(join(root, "usr/lib", d)));
    expect(libs.length).toBeGreaterThan(5);
    for (const lib of libs) expect(lib).not.toMatch(/^lib(ssl|crypto|wrap|nsl|tirpc|gssapi_krb5|krb5|k5crypto|krb5support|com_err|keyutils)\.so/);
    expect(readFileSync(join(root, "usr/bin/socat"))).toEqual(readFileSync(join(builtPrograms(), "usr/bin/socat")));
    const loader = readdirSync(join(root, "usr/lib64")).find((f) => f.startsWith("ld-linux"))!;
    const r = await sh(`/usr/lib64/${loader} --list /usr/bin/socat | sed 's/ (0x.*//' | sort; socat -V | grep -E 'WITH_(OPENSSL|LIBWRAP|TCP|UNIX|LISTEN)\\b'`);
    expect(r.stderr).toBe("");
    const [links, features] = [r.stdout.split("\n").filter((l) => l.includes(".so")), r.stdout.split("\n").filter((l) => l.includes("WITH_"))];
    expect(links.map((l) => l.trim().split(/\s/)[0])).toEqual(expect.arrayContaining(["libc.so.6"]));
    expect(links.filter((l) => !/libc\.so\.6|ld-linux|linux-vdso/.test(l))).toEqual([]);
    expect(features.map((l) => l.trim()).sort()).toEqual(["#define WITH_LISTEN 1", "#define WITH_TCP 1", "#define WITH_UNIX 1", "#undef WITH_LIBWRAP", "#undef WITH_OPENSSL"]);
  });

  test("a headless task in a git repository: Write, then Bash (git status, add, commit, worktree, log; busybox; certificates), Grep through ripgrep", async () => {
    const work = tempDir("yoke-img-work-");
    writeFileSync(join(work, "README.md"), "# in the image\n");
    gitRepo(work);
    const home = tempDir("yoke-img-home-");
    const script =
      "git status --short && git add -A && git -c user.name=img -c user.email=img@example.com commit -qm 'from the image' && " +
      "git worktree add -q /tmp/wt && git -C /tmp/wt log --format=%s -1 && git diff HEAD~1 --stat | tail -1 && " +
      "ls /usr/lib/git-core/git-submodule >/dev/null && sed -n 1p out.txt | tr a-z A-Z && " +
      "grep -c BEGIN /etc/ssl/certs/ca-certificates.crt | awk '$1 > 100 {print \"certs ok\"}'";
    fake.push(
      { content: [{ type: "tool_use", name: "Write", input: { file_path: `${workdir}/out.txt`, content: "from the container\n" } }] },
      { content: [{ type: "tool_use", name: "Bash", input: { command: script } }] },
      { content: [{ type: "tool_use", name: "Grep", input: { pattern: "contain", output_mode: "content", "-n": true } }] },
      { content: [{ type: "text", text: "done in the image" }] },
    );
    const before = fake.requests.length;
    const r = await runInImage(["-p", "do it", "--output-format", "json"], { ...imageEnv, ...apiEnv(), YOKE_GREP_ENGINE: "rg", YOKE_SETTINGS: '{"permissions":{"allow":["Write","Bash","Grep"]}}' }, { home, work });
    expect(r.stderr).not.toContain("internal error");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ is_error: false, result: "done in the image" });
    const bash = toolResults(fake.requests[before + 2]!);
    expect(bash).toContain("?? out.txt");
    expect(bash).toContain("from the image");
    expect(bash).toContain("1 file changed, 1 insertion(+)");
    expect(bash).toContain("FROM THE CONTAINER");
    expect(bash).toContain("certs ok");
    expect(toolResults(fake.requests[before + 3]!)).toContain("out.txt:1:from the container");
    // The commit is in the repository, and yoke's checkpoint (a git snapshot before Bash ran) is there too.
    const git = (args: string[]) => Bun.spawnSync(["git", "-C", work, ...args], { stdout: "pipe" }).stdout.toString();
    expect(git(["log", "--format=%s", "-1"])).toBe("from the image\n");
    expect(git(["for-each-ref", "--format=%(refname)", "refs/yoke/checkpoints/"])).toMatch(/^refs\/yoke\/checkpoints\/[^/]+\/\d+\n/);
  });

  test("the git commands yoke and its checkpoints run, and the everyday ones, work with what files.txt keeps of git", async () => {
    const work = tempDir("yoke-img-work-");
    writeFileSync(join(work, "a.txt"), "one\n");
    writeFileSync(join(work, ".gitignore"), "*.log\n");
    const script = [
      "set -e",
      "export GIT_AUTHOR_NAME=img GIT_AUTHOR_EMAIL=img@example.com GIT_COMMITTER_NAME=img GIT_COMMITTER_EMAIL=img@example.com",
      "git init -q . && git rev-parse --is-inside-work-tree",
      `git add -A && git commit -qm first && git log --format=%s -1`,
      "echo two >> a.txt && git status --porcelain && git diff --stat | tail -1",
      "git ls-files -z | tr '\\0' '\\n' | sort | tr '\\n' ' ' && echo",
      "touch x.log && git check-ignore x.log",
      // yoke's checkpoint: a tree of the worktree in a private index, kept under a ref (src/checkpoint).
      "GIT_INDEX_FILE=/tmp/ix git read-tree HEAD && GIT_INDEX_FILE=/tmp/ix git add -A && t=$(GIT_INDEX_FILE=/tmp/ix git write-tree) && git update-ref refs/yoke/t $(git commit-tree -m cp $t) && git diff-tree --name-only -r HEAD refs/yoke/t",
      `git stash -q && git stash list | wc -l && git stash pop -q && git status --porcelain`,
      `git worktree add -q /tmp/wt && git -C /tmp/wt rev-parse --abbrev-ref HEAD && git -C /tmp/wt commit -q --allow-empty -m wt && git worktree remove /tmp/wt`,
      // A shell-script command: its messages go through gettext.sh (gettext-base), not git's left-out helper.
      "git submodule status && git submodule foreach true && echo end",
    ].join("\n");
    const r = await sh(script, { work });
    expect({ stderr: r.stderr, code: r.code }).toEqual({ stderr: "", code: 0 });
    expect(r.stdout).toBe(["true", "first", " M a.txt", " 1 file changed, 1 insertion(+)", ".gitignore a.txt ", "x.log", "a.txt", "1", " M a.txt", "wt", "end", ""].join("\n"));
  });

  test("the Kubernetes Job's command runs in the image: tini, the fleet entrypoint (busybox sh, sha256sum, sed), a task to its result", async () => {
    const job = parseAllDocuments(readFileSync(join(repoRoot(), "deploy/k8s/job.yaml"), "utf8")).map((d) => d.toJS()).find((d) => d?.kind === "Job");
    const pod = job.spec.template.spec;
    const c = pod.containers[0];
    const env: Record<string, string> = Object.fromEntries(c.env.filter((e: any) => "value" in e).map((e: any) => [e.name, String(e.value)]));
    const host: Record<string, string> = { tasks: tempDir("yoke-img-tasks-"), settings: tempDir("yoke-img-cfg-"), results: tempDir("yoke-img-results-"), home: tempDir("yoke-img-home-"), tmp: tempDir("yoke-img-tmp-") };
    writeFileSync(join(host.tasks!, "task-3"), "write done.txt\n");
    writeFileSync(join(host.settings!, "settings.json"), readFileSync(join(repoRoot(), "deploy/k8s/settings.json")));
    fake.push(
      { content: [{ type: "tool_use", name: "Write", input: { file_path: "done.txt", content: "task 3\n" } }] },
      { content: [{ type: "text", text: "task 3 done" }] },
    );
    const binds = c.volumeMounts.map((m: any) => ({ from: host[m.name]!, to: m.mountPath, readOnly: m.readOnly === true }));
    const r = await runInImage([], { PATH: imageEnv.PATH!, ...env, ...apiEnv(), JOB_COMPLETION_INDEX: "3" }, { work: tempDir("yoke-img-work-"), binds, user: pod.securityContext.runAsUser }, c.command);
    // What stderr may say: that the sandbox is off in a container (the Job runs under the RuntimeDefault seccomp profile).
    expect(r.stderr.replace(/^yoke: the Bash sandbox is off: .*\n/m, "")).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(host.results!, "task-3", "result.json"), "utf8"))).toMatchObject({ is_error: false, result: "task 3 done" });
    expect(readFileSync(join(host.results!, "work", "task-3", "done.txt"), "utf8")).toBe("task 3\n");
    // A second run of the same index finds the result and does not run the task again.
    const again = await runInImage([], { PATH: imageEnv.PATH!, ...env, ...apiEnv(), JOB_COMPLETION_INDEX: "3" }, { work: tempDir("yoke-img-work-"), binds, user: pod.securityContext.runAsUser }, c.command);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("already has its result");
  });

  test("sandbox.enabled in the image, where the engine lets a container make namespaces: Bash runs inside the sandbox", async () => {
    // The image holds everything the sandbox library checks for (bubblewrap, ripgrep, socat); an engine must still let the
    // container make user namespaces (Docker's default seccomp profile does not: README, "Container image").
    const work = tempDir("yoke-img-work-");
    const home = tempDir("yoke-img-home-");
    fake.push(
      { content: [{ type: "tool_use", name: "Bash", input: { command: "echo inside > in.txt && { touch /home/yoke/escaped.txt 2>/dev/null && echo escaped || echo held; }" } }] },
      { content: [{ type: "text", text: "ran" }] },
    );
    const before = fake.requests.length;
    const settings = '{"permissions":{"allow":["Bash"]},"sandbox":{"enabled":true}}';
    const r = await runInImage([], { ...imageEnv, ...apiEnv(), YOKE_SETTINGS: settings }, { home, work, nestedNamespaces: true }, [yokePath, "-p", "run it", "--output-format", "stream-json", "--verbose"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const init = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((m) => m.type === "system" && m.subtype === "init");
    expect(init).toMatchObject({ sandbox_enabled: true });
    // Written where the workspace is, held everywhere else (the home volume is writable to yoke, not to the command).
    expect(toolResults(fake.requests[before + 1]!)).toContain("held");
    expect(readFileSync(join(work, "in.txt"), "utf8")).toBe("inside\n");
    expect(readdirSync(home)).not.toContain("escaped.txt");
  });

  test("an allowed host in the image: the library's socat bridges carry a sandboxed command's request, and nothing else gets out", async () => {
    const work = tempDir("yoke-img-work-");
    const heard: string[] = [];
    const site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => (heard.push(new URL(req.url).pathname), new Response("through the proxy")) });
    try {
      // busybox wget goes through http_proxy, which the sandbox sets to its socat bridge; 127.0.0.2 is not allowed.
      const cmd = `wget -q -O - http://localhost:${site.port}/allowed; echo; wget -q -O - http://127.0.0.2:${site.port}/denied 2>&1 | head -1; echo end`;
      fake.push({ content: [{ type: "tool_use", name: "Bash", input: { command: cmd } }] }, { content: [{ type: "text", text: "fetched" }] });
      const before = fake.requests.length;
      const settings = JSON.stringify({ permissions: { allow: ["Bash"] }, sandbox: { enabled: true, network: { allowedDomains: ["localhost"] } } });
      const r = await runInImage([], { ...imageEnv, ...apiEnv(), YOKE_SETTINGS: settings }, { home: tempDir("yoke-img-home-"), work, nestedNamespaces: true }, [yokePath, "-p", "fetch it"]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const out = toolResults(fake.requests[before + 1]!);
      expect(out).toContain("through the proxy");
      expect(out).toContain("end");
      expect(heard).toEqual(["/allowed"]);
    } finally {
      site.stop(true);
    }
  });
});
