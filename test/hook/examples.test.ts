import { describe, expect, test } from "bun:test";
import type { EmitPayload } from "../../src/hook/typed.ts";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { busFor, cmd, hooks, makeEnv, prePayload, writeSettings } from "./helpers.ts";

const examples = join(import.meta.dir, "..", "..", "hooks", "examples");

describe("hooks/examples/bash-guard.sh (PreToolUse on Bash, exit 2)", () => {
  const e = makeEnv();
  writeSettings(e, "project", hooks("PreToolUse", "Bash", cmd(join(examples, "bash-guard.sh"))));
  const bus = busFor(e);
  const blocked = [
    "rm -rf /",
    "rm -fr /*",
    "sudo rm -rf ~",
    "cd /tmp && rm -r -f $HOME",
    "git push --force origin main",
    "git push -f",
    "git push origin +main",
    "git clean -fdx",
    "mkfs.ext4 /dev/sda1",
    "dd if=/dev/zero of=/dev/sda bs=1M",
    "chmod -R 777 /",
    'echo "x" ; rm  -rf   /',
  ];
  const allowed = ["ls -la", "rm -rf ./build", "rm -rf /tmp/yoke-test", "git push origin main", "git push --force-with-lease", "git status", 'echo "rm -rf is dangerous"'];
  for (const c of blocked) {
    test(`blocks: ${c}`, async () => {
      const o = await bus.emit("PreToolUse", prePayload(e, "Bash", { command: c }));
      expect(o.blocked).toBe(true);
      expect(o.permissionDecision).toBe("deny");
      expect(o.blockReason).toContain("bash-guard:");
      expect(o.blockReason).toContain("Do not run this");
    });
  }
  for (const c of allowed) {
    test(`allows: ${c}`, async () => {
      const o = await bus.emit("PreToolUse", prePayload(e, "Bash", { command: c }));
      expect(o.blocked).toBe(false);
      expect(o.records[0]!.exitCode).toBe(0);
    });
  }
  test("does not run for other tools", async () => {
    expect((await bus.emit("PreToolUse", prePayload(e, "Write", { file_path: "/", content: "rm -rf /" }))).records).toHaveLength(0);
  });
});

describe("hooks/examples/format-on-write.sh (PostToolUse on Write|Edit)", () => {
  const post = (file: string, tool = "Write"): EmitPayload<"PostToolUse"> => ({
    session_id: "s", transcript_path: "/t", cwd: "/p", hook_event_name: "PostToolUse",
    tool_name: tool, tool_input: { file_path: file, content: "x" }, tool_response: { type: "create", filePath: file }, tool_use_id: "t1",
  });
  test("runs the project's prettier on the written file", async () => {
    const e = makeEnv();
    const bin = join(e.project, "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "prettier"), `#!/bin/sh\necho "$@" > "${join(e.project, "prettier.args")}"\n`);
    chmodSync(join(bin, "prettier"), 0o755);
    const file = join(e.project, "a b.ts");
    writeFileSync(file, "const x=1");
    writeSettings(e, "project", hooks("PostToolUse", "Write|Edit", cmd(join(examples, "format-on-write.sh"))));
    const o = await busFor(e).emit("PostToolUse", post(file, "Edit"));
    expect(o.records[0]!.exitCode).toBe(0);
    expect(readFileSync(join(e.project, "prettier.args"), "utf8").trim()).toBe(`--write --log-level warn ${file}`);
  });
  test("does nothing without a formatter or for unknown files", async () => {
    const e = makeEnv();
    const file = join(e.project, "notes.xyz");
    writeFileSync(file, "x");
    writeSettings(e, "project", hooks("PostToolUse", "Write|Edit", cmd(join(examples, "format-on-write.sh"))));
    const bus = busFor(e, { env: { ...e.env, PATH: "/usr/bin:/bin" } });
    const o = await bus.emit("PostToolUse", post(file));
    expect(o.records[0]).toMatchObject({ exitCode: 0, stdout: "", stderr: "" });
    expect(o.blocked).toBe(false);
  });
});

describe("hooks/examples/stop-until-tests-pass.sh (Stop)", () => {
  const stop = (active: boolean): EmitPayload<"Stop"> => ({ session_id: "s", transcript_path: "/t", cwd: "/p", hook_event_name: "Stop", stop_hook_active: active });
  test("blocks with the failure tail until the tests pass; respects stop_hook_active", async () => {
    const e = makeEnv();
    writeSettings(e, "project", {
      env: { YOKE_TEST_COMMAND: `printf '\\033[31mFAIL\\033[0m "quoted"\\tcase\\n' ; test -f ok.flag` },
      ...hooks("Stop", undefined, cmd(join(examples, "stop-until-tests-pass.sh"))),
    });
    const bus = busFor(e);
    const first = await bus.emit("Stop", stop(false));
    expect(first.records[0]!.error).toBeUndefined();
    expect(first.blocked).toBe(true);
    expect(first.blockReason).toContain("The tests are failing");
    expect(first.blockReason).toContain('FAIL "quoted"\tcase');
    expect(first.blockReason).not.toContain("\u001b");
    expect((await bus.emit("Stop", stop(true))).blocked).toBe(false);
    writeFileSync(join(e.project, "ok.flag"), "");
    expect((await bus.emit("Stop", stop(false))).blocked).toBe(false);
    expect(existsSync(join(e.project, "ok.flag"))).toBe(true);
  });
});
