// Issue 16 point 10: sensitive paths always need approval, in every mode but bypassPermissions (contracts §3.2 protected paths).
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import { isCredentialPath, isProtectedPath } from "../../src/permission/sensitive-paths.ts";
import type { PermissionMode } from "../../src/permission/types.ts";
import { type Perms, settingsOf, tempProject } from "./settings-fixture.ts";

const t = tempProject("yoke-sensitive-");
afterAll(t.cleanup);

const ev = (perms: Perms, o: { mode?: PermissionMode; addDirs?: string[]; autoAllowWriteDirs?: string[] } = {}) =>
  createPermissionEvaluator({ settings: settingsOf({ level: "user", ruleRoot: t.home, permissions: perms }), cwd: t.cwd, env: t.env, ...o });
const decide = (e: ReturnType<typeof ev>, toolName: string, input: Record<string, unknown>) => e.decide({ toolName, input, readOnly: false, cwd: t.cwd }).behavior;

const H = (p: string) => join(t.home, p);

describe("the sensitive-path classes", () => {
  test("credential stores, by component anywhere (other users' homes too)", () => {
    for (const p of [
      H(".ssh/id_ed25519"), H(".ssh/authorized_keys"), H(".aws/credentials"), H(".config/gh/hosts.yml"), H(".netrc"), H(".docker/config.json"),
      H(".kube/config"), H(".config/gcloud/application_default_credentials.json"), H(".git-credentials"), H(".gnupg/private-keys-v1.d/x.key"),
      H(".cargo/credentials.toml"), H(".pgpass"), H(".azure/msal_token_cache.json"), "/root/.ssh/id_rsa", "/home/other/.aws/config",
      H(".ＳＳＨ/id_rsa"), // full-width look-alike
      H(".ѕsh/id_rsa"), // Cyrillic ѕ
    ])
      expect(isCredentialPath(p)).toBe(true);
    for (const p of [H("proj/src/ssh.ts"), H(".docker/daemon.json"), H(".config/ghostty/config"), H("notes/aws.md")]) expect(isCredentialPath(p)).toBe(false);
  });

  test("protected for writes: profiles, git hooks and config, agent settings, credential stores", () => {
    for (const p of [
      H(".bashrc"), H(".zshenv"), H(".profile"), H(".bash_aliases"), H(".config/fish/config.fish"), H(".config/systemd/user/x.service"),
      H(".config/autostart/x.desktop"), H(".local/bin/git"), H(".envrc"), join(t.cwd, ".envrc"), join(t.cwd, ".git/hooks/pre-commit"),
      join(t.cwd, ".git/config"), join(t.cwd, ".claude/settings.json"), join(t.cwd, ".claude/settings.local.json"), join(t.cwd, ".yoke/plugins/x.ts"),
      join(t.cwd, ".mcp.json"), join(t.cwd, ".husky/pre-commit"), H(".yoke/trust.json"), H(".ssh/config"), H(".npmrc"),
    ])
      expect(isProtectedPath(p)).toBe(true);
    expect(isProtectedPath(join(t.cwd, ".claude/worktrees/a/src/x.ts"))).toBe(false);
    expect(isProtectedPath(join(t.cwd, "src/bashrc.ts"))).toBe(false);
  });
});

describe("the evaluator asks for them in every mode but bypass, whatever allows them", () => {
  const everything: Perms = { allow: ["Edit", "Write", "Read", "Bash"], additionalDirectories: ["/"] };
  for (const mode of ["default", "acceptEdits", "auto", "plan"] as PermissionMode[]) {
    test(`${mode}: writes to profiles and ~/.ssh ask; reads of credential stores ask`, () => {
      const e = ev(everything, { mode, addDirs: ["/"] });
      for (const f of [".bashrc", ".ssh/authorized_keys", ".zprofile"]) expect(decide(e, "Write", { file_path: H(f), content: "x" })).toBe(mode === "plan" ? "deny" : "ask");
      for (const f of [".aws/credentials", ".ssh/id_rsa", ".config/gh/hosts.yml", ".netrc"]) expect(decide(e, "Read", { file_path: H(f) })).toBe("ask");
      expect(decide(e, "Edit", { file_path: join(t.cwd, ".git/hooks/pre-commit"), old_string: "a", new_string: "b" })).toBe(mode === "plan" ? "deny" : "ask");
      expect(decide(e, "Read", { file_path: join(t.cwd, ".claude/settings.json") })).toBe("allow");
    });
  }
  test("dontAsk denies them; bypassPermissions allows them", () => {
    expect(decide(ev(everything, { mode: "dontAsk" }), "Read", { file_path: H(".aws/credentials") })).toBe("deny");
    expect(decide(ev(everything, { mode: "bypassPermissions" }), "Write", { file_path: H(".bashrc"), content: "" })).toBe("allow");
    expect(decide(ev(everything, { mode: "bypassPermissions" }), "Read", { file_path: H(".ssh/id_rsa") })).toBe("allow");
  });
  test("a hook's allow does not lift them", () => {
    const e = ev(everything, { addDirs: ["/"] });
    expect(e.decide({ toolName: "Read", input: { file_path: H(".aws/credentials") }, hookDecision: "allow", readOnly: true, cwd: t.cwd }).behavior).toBe("ask");
  });
  test("an auto-memory folder moved onto $HOME still cannot write profiles or ~/.ssh", () => {
    const e = ev({}, { autoAllowWriteDirs: [t.home] });
    expect(decide(e, "Write", { file_path: H(".bashrc"), content: "x" })).toBe("ask");
    expect(decide(e, "Write", { file_path: H(".ssh/authorized_keys"), content: "x" })).toBe("ask");
    expect(decide(e, "Write", { file_path: H("MEMORY.md"), content: "x" })).toBe("allow");
    // The usual memory folder lives under ~/.yoke: writes inside it need no approval.
    const mem = H(".yoke/projects/p/memory");
    expect(decide(ev({}, { autoAllowWriteDirs: [mem] }), "Write", { file_path: join(mem, "MEMORY.md"), content: "x" })).toBe("allow");
  });
  test("Bash: reading a credential store or writing a profile asks, even with Bash allowed and / a working dir", () => {
    const e = ev(everything, { addDirs: ["/"], mode: "acceptEdits" });
    for (const c of ["cat ~/.aws/credentials", `head -1 ${H(".ssh/id_rsa")}`, "echo x >> ~/.bashrc", "cp evil ~/.ssh/authorized_keys", "cat ~/.config/gh/hosts.yml"])
      expect(decide(e, "Bash", { command: c })).toBe("ask");
    expect(decide(e, "Bash", { command: "cat README.md" })).toBe("allow");
  });
  test("Grep over $HOME skips credential stores", () => {
    expect(ev({}).grepExcludes(t.home)).toEqual(expect.arrayContaining(["!.ssh", "!.aws", "!**/.config/gh", "!.netrc"]));
  });
});
