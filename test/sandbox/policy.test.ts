// The sandbox's view comes from the permission rules (issue 16 point 12): Read denies unreadable, Edit
// denies read-only, writes only in the working directories, network only to allowed domains.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LoadedSettings } from "../../src/config/load.ts";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import { buildPolicy, isExcluded, ruleTargets, sandboxWish } from "../../src/sandbox/index.ts";
import { expandDenyWriteGlobs } from "../../src/sandbox/policy.ts";
import { tempDir } from "../helpers/tmp.ts";

function policyFor(perms: Record<string, unknown>, sandbox: Record<string, unknown> = {}, layout: (cwd: string) => void = () => {}) {
  const cwd = tempDir("yoke-policy-");
  layout(cwd);
  const settings = { merged: { permissions: perms, sandbox }, sources: [{ level: "user", path: "s.json", ruleRoot: cwd, settings: { permissions: perms } }] } as LoadedSettings;
  const ev = createPermissionEvaluator({ settings, cwd, env: { HOME: "/home/u" }, addDirs: [] });
  return { cwd, policy: buildPolicy({ rules: ev.ruleSet, workingDirectories: ev.workingDirectories, settings: sandbox, scratch: ["/tmp/yoke-s"] }) };
}

describe("buildPolicy", () => {
  test("Read deny rules become unreadable paths; an unanchored name covers every depth", () => {
    const { cwd, policy } = policyFor({ deny: ["Read(./secrets/**)", "Read(.env)", "Read(~/.aws/**)", "Read(//etc/shadow)", "Read(*.pem)"] });
    expect(policy.denyRead).toContain(join(cwd, "secrets"));
    expect(policy.denyRead).toContain(join(cwd, ".env"));
    expect(policy.denyRead).toContain(join(cwd, "**/.env"));
    expect(policy.denyRead).toContain("/home/u/.aws");
    expect(policy.denyRead).toContain("/etc/shadow");
    expect(policy.denyRead).toContain(join(cwd, "**/*.pem"));
  });

  test("writes only in the working directories, the scratch dir and literal Edit allow rules", () => {
    const { cwd, policy } = policyFor({ allow: ["Edit(//srv/out/**)", "Edit(**/*.ts)"] });
    expect(policy.allowWrite).toEqual([cwd, "/tmp/yoke-s", "/srv/out"]);
  });

  test("Edit deny rules become read-only paths; globs are expanded to what exists", () => {
    const { cwd, policy } = policyFor({ deny: ["Edit(./protected/**)", "Edit(**/*.lock)"] }, {}, (d) => {
      mkdirSync(join(d, "a/b"), { recursive: true });
      writeFileSync(join(d, "a/b/x.lock"), "");
      writeFileSync(join(d, "top.lock"), "");
    });
    expect(policy.denyWrite).toContain(join(cwd, "protected"));
    expect(policy.denyWriteGlobs).toEqual([{ root: cwd, pattern: "**/*.lock" }]);
    expect(expandDenyWriteGlobs(policy.denyWriteGlobs).sort()).toEqual([join(cwd, "a/b/x.lock"), join(cwd, "top.lock")]);
  });

  test("settings files and the repository's hooks and config are read-only when present", () => {
    const { cwd, policy } = policyFor({}, {}, (d) => {
      mkdirSync(join(d, ".claude"), { recursive: true });
      writeFileSync(join(d, ".claude/settings.json"), "{}");
      mkdirSync(join(d, ".git/hooks"), { recursive: true });
      writeFileSync(join(d, ".git/config"), "");
    });
    expect(policy.denyWrite).toEqual(expect.arrayContaining([join(cwd, ".claude/settings.json"), join(cwd, ".git/hooks"), join(cwd, ".git/config")]));
    expect(policy.denyWrite).not.toContain(join(cwd, ".claude/settings.local.json"));
  });

  test("network: sandbox.network.allowedDomains plus WebFetch domain allow rules; domain denies are denied", () => {
    const { policy } = policyFor(
      { allow: ["WebFetch(domain:docs.example.com)", "WebFetch(domain:*)", "WebFetch"], deny: ["WebFetch(domain:Evil.Example.com.)"] },
      { network: { allowedDomains: ["packages.example.com", "*.github.com"] } },
    );
    expect(policy.allowedDomains).toEqual(["packages.example.com", "*.github.com", "docs.example.com"]);
    expect(policy.deniedDomains).toEqual(["evil.example.com"]);
  });

  test("sandbox.filesystem entries are added as they are", () => {
    const { policy } = policyFor({}, { filesystem: { allowWrite: ["/data"], denyWrite: ["/data/keep"], denyRead: ["~/.ssh"], allowRead: ["/x"] } });
    expect(policy.allowWrite).toContain("/data");
    expect(policy.denyWrite).toContain("/data/keep");
    expect(policy.denyRead).toContain("~/.ssh");
    expect(policy.allowRead).toEqual(["/x"]);
  });
});

test("ruleTargets: root itself for `**`, both spellings of a symlinked root", () => {
  expect(ruleTargets({ root: "/p", realRoot: "/real/p", pattern: "**" })).toEqual(["/p", "/real/p"]);
  expect(ruleTargets({ root: "/p", realRoot: "/p", pattern: "/a/b/" })).toEqual(["/p/a/b"]);
});

describe("sandboxWish", () => {
  test("default: on wherever it can start", () => expect(sandboxWish(undefined, {})).toEqual({ want: "auto" }));
  test("YOKE_SANDBOX=0 forces it off, =1 requires it", () => {
    expect(sandboxWish({ enabled: true }, { YOKE_SANDBOX: "0" })).toEqual({ want: "off", why: "YOKE_SANDBOX=0" });
    expect(sandboxWish({ enabled: false }, { YOKE_SANDBOX: "1" })).toEqual({ want: "on", required: true });
  });
  test("enabled false turns it off; enabled true requires it unless failIfUnavailable is false", () => {
    expect(sandboxWish({ enabled: false }, {})).toMatchObject({ want: "off" });
    expect(sandboxWish({ enabled: true }, {})).toEqual({ want: "on", required: true });
    expect(sandboxWish({ enabled: true, failIfUnavailable: false }, {})).toEqual({ want: "on", required: false });
    expect(sandboxWish({ failIfUnavailable: true }, {})).toEqual({ want: "on", required: true });
  });
});

test("excludedCommands match the command at the start of any part", () => {
  expect(isExcluded("docker ps", ["docker"])).toBe(true);
  expect(isExcluded("cd x && docker build .", ["docker:*"])).toBe(true);
  expect(isExcluded("echo docker", ["docker"])).toBe(false);
  expect(isExcluded("dockerd", ["docker *"])).toBe(false);
  expect(isExcluded("ls", [])).toBe(false);
});
