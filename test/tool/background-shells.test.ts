import { toolNames } from "../../src/tool/declarations.ts";
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bashTool } from "../../src/tool/builtin/bash.ts";
import { bashOutputTool } from "../../src/tool/builtin/bash-output.ts";
import { taskStopTool } from "../../src/tool/builtin/task-stop.ts";
import { killAllBackgroundShells, shellRegistry } from "../../src/tool/builtin/background-shells.ts";
import type { ToolContext } from "../../src/tool/types.ts";
import { alive } from "../helpers/process-alive.ts";
import { makeShellCtx } from "./shell-ctx.ts";
import { waitFor } from "../helpers/wait-for.ts";

const text = (r: { content: unknown }) => r.content as string;
const bg = (ctx: ToolContext, command: string, extra: Record<string, unknown> = {}) =>
  bashTool.run({ command, run_in_background: true, ...extra }, ctx);
const output = (ctx: ToolContext, input: Record<string, unknown>) => bashOutputTool.run(input, ctx);
const until = (cond: () => boolean) => waitFor(cond, cond.toString());

describe("Bash run_in_background (contracts §7.2)", () => {
  test("returns at once with a shell id; output is read incrementally", async () => {
    const { ctx, dir } = makeShellCtx();
    // "two" waits for the test's go (a barrier): after a fixed 0.4 s it could beat a starved test to its first read.
    const r = await bg(ctx, "echo one; until [ -e go ]; do sleep 0.01; done; echo two; sleep 30");
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain("bash_1");
    expect(text(r)).toContain("BashOutput");
    expect(r.details).toEqual({
      stdout: "",
      stderr: "",
      interrupted: false,
      isImage: false,
      noOutputExpected: false,
      backgroundTaskId: "bash_1",
    });
    const sh = shellRegistry(ctx.session).get("bash_1")!;
    await until(() => sh.unread.stdout.includes("one"));
    const first = await output(ctx, { bash_id: "bash_1" });
    expect(text(first)).toContain("still running");
    expect(text(first)).toContain("<stdout>\none\n</stdout>");
    expect(text(first)).not.toContain("two");
    writeFileSync(join(dir, "go"), "");
    await until(() => sh.unread.stdout.includes("two"));
    const second = await output(ctx, { bash_id: "bash_1" });
    expect(text(second)).toContain("two");
    expect(text(second)).not.toContain("one");
    const third = await output(ctx, { bash_id: "bash_1" });
    expect(text(third)).toContain("(no new output)");
    expect(third.details).toMatchObject({ shellId: "bash_1", status: "running", exitCode: null });
    await killAllBackgroundShells(ctx.session);
  });

  test("completion, exit code, stderr and the output file", async () => {
    const { ctx } = makeShellCtx();
    await bg(ctx, "echo out; echo err >&2; exit 7");
    const sh = shellRegistry(ctx.session).get("bash_1")!;
    await sh.done;
    const r = await output(ctx, { bash_id: "bash_1" });
    expect(text(r)).toContain("completed with exit code 7");
    expect(text(r)).toContain("<stdout>\nout\n</stdout>");
    expect(text(r)).toContain("<stderr>\nerr\n</stderr>");
    expect(r.details).toMatchObject({ status: "completed", exitCode: 7 });
    const file = readFileSync(sh.outputFile, "utf8");
    expect(file).toContain("out\n");
    expect(file).toContain("err\n");
    expect(sh.outputFile.startsWith(ctx.env.TMPDIR!)).toBe(true);
  });

  test("runs in the session cwd with settings env and env files", async () => {
    const { ctx, root } = makeShellCtx({ env: { SET_BY_SETTINGS: "s1" } });
    const f = join(root, "env.sh");
    require("node:fs").writeFileSync(f, "export FROM_FILE=f1\n");
    ctx.session.envFiles = [f];
    await bg(ctx, "pwd; echo $SET_BY_SETTINGS $FROM_FILE");
    await shellRegistry(ctx.session).get("bash_1")!.done;
    const r = await output(ctx, { bash_id: "bash_1" });
    expect(text(r)).toContain(`${ctx.session.cwd}\ns1 f1`);
  });

  test("filter keeps matching lines only and consumes the rest", async () => {
    const { ctx } = makeShellCtx();
    await bg(ctx, "for i in 1 2 3 4; do echo line$i; done; echo ERR2 >&2");
    await shellRegistry(ctx.session).get("bash_1")!.done;
    const r = await output(ctx, { bash_id: "bash_1", filter: "2|4" });
    expect(text(r)).toContain("<stdout>\nline2\nline4\n</stdout>");
    expect(text(r)).toContain("<stderr>\nERR2\n</stderr>");
    expect(text(r)).not.toContain("line1");
    expect(text(await output(ctx, { bash_id: "bash_1" }))).toContain("(no new output)");
  });

  test("invalid filter and unknown id are errors the model can act on", async () => {
    const { ctx } = makeShellCtx();
    const none = await output(ctx, { bash_id: "bash_9" });
    expect(none.isError).toBe(true);
    expect(text(none)).toContain("No background shells have been started");
    await bg(ctx, "true");
    const bad = await output(ctx, { bash_id: "bash_1", filter: "(" });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain("not a valid regular expression");
    const unknown = await output(ctx, { bash_id: "bash_2" });
    expect(text(unknown)).toContain("Known shells: bash_1");
  });

  test("TaskStop kills the whole group; KillShell's shell_id is still accepted (contracts §7.1)", async () => {
    const { ctx, dir } = makeShellCtx();
    await bg(ctx, "sleep 30 & echo $! > c1.pid; sleep 30");
    await bg(ctx, "sleep 30 & echo $! > c2.pid; sleep 30");
    const reg = shellRegistry(ctx.session);
    await until(() => Bun.file(join(dir, "c1.pid")).size > 0 && Bun.file(join(dir, "c2.pid")).size > 0);
    const c1 = Number(readFileSync(join(dir, "c1.pid"), "utf8"));
    const c2 = Number(readFileSync(join(dir, "c2.pid"), "utf8"));
    const r = await taskStopTool.run({ shell_id: "bash_1" }, ctx);
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain("Stopped background shell bash_1");
    expect(reg.get("bash_1")!.status).toBe("killed");
    await until(() => !alive(c1));
    expect(alive(c2)).toBe(true);
    const r2 = await taskStopTool.run({ task_id: "bash_2" }, ctx);
    expect(r2.isError).toBeFalsy();
    await until(() => !alive(c2));
    const again = await taskStopTool.run({ shell_id: "bash_2" }, ctx);
    expect(text(again)).toContain("was killed");
    const missing = await taskStopTool.run({}, ctx);
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain("task_id");
    expect(toolNames(taskStopTool.name)).toContain("TaskStop");
    expect(taskStopTool.jsonSchema.required).toEqual(["task_id"]);
  });

  test("killAllBackgroundShells stops every running shell", async () => {
    const { ctx, dir } = makeShellCtx();
    await bg(ctx, "sleep 30 & echo $! > a.pid; wait");
    await bg(ctx, "echo $$ > b.pid; sleep 30");
    await until(() => Bun.file(join(dir, "a.pid")).size > 0 && Bun.file(join(dir, "b.pid")).size > 0);
    const pids = ["a.pid", "b.pid"].map((f) => Number(readFileSync(join(dir, f), "utf8")));
    expect(pids.every(alive)).toBe(true);
    await killAllBackgroundShells(ctx.session);
    expect([...shellRegistry(ctx.session).values()].map((s) => s.status)).toEqual(["killed", "killed"]);
    await until(() => pids.every((p) => !alive(p)));
  });

  test("a child holding the pipes: completed at once, late output still read, killed with the session", async () => {
    const { ctx, dir } = makeShellCtx();
    await bg(ctx, "(echo $BASHPID > holder.pid; sleep 0.3; echo late; sleep 30) & echo early; exit 2");
    const sh = shellRegistry(ctx.session).get("bash_1")!;
    await until(() => sh.status === "completed");
    expect(sh.exitCode).toBe(2);
    expect(sh.outputOpen).toBe(true);
    await until(() => sh.unread.stdout.includes("late"));
    const r = await output(ctx, { bash_id: "bash_1" });
    expect(text(r)).toContain("completed with exit code 2");
    expect(text(r)).toContain("early\nlate");
    const holder = Number(readFileSync(join(dir, "holder.pid"), "utf8"));
    expect(alive(holder)).toBe(true);
    await killAllBackgroundShells(ctx.session);
    await until(() => !alive(holder));
    expect(sh.status).toBe("completed");
  });

  test("KillShell also stops a child that outlived its shell and still holds the output", async () => {
    const { ctx, dir } = makeShellCtx();
    await bg(ctx, "(echo $BASHPID > holder.pid; sleep 30) & echo started; exit 0");
    const sh = shellRegistry(ctx.session).get("bash_1")!;
    await until(() => sh.status === "completed" && Bun.file(join(dir, "holder.pid")).size > 0);
    const holder = Number(readFileSync(join(dir, "holder.pid"), "utf8"));
    expect(alive(holder)).toBe(true);
    const r = await taskStopTool.run({ shell_id: "bash_1" }, ctx);
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain("Stopped");
    await until(() => !alive(holder));
    expect(sh.outputOpen).toBe(false);
  });

  test("explicit timeout stops a background shell", async () => {
    const { ctx } = makeShellCtx();
    await bg(ctx, "sleep 30", { timeout: 200 });
    const sh = shellRegistry(ctx.session).get("bash_1")!;
    await sh.done;
    expect(sh.status).toBe("killed");
  });

  test("in-memory unread output is capped; the file keeps everything", async () => {
    const { ctx } = makeShellCtx();
    await bg(ctx, "seq 1 300000; echo END");
    const sh = shellRegistry(ctx.session).get("bash_1")!;
    await sh.done;
    const r = await output(ctx, { bash_id: "bash_1" });
    expect(text(r)).toContain("END");
    expect(text(r)).toContain("earlier characters were not kept");
    expect(text(r)).not.toContain("<stdout>\n1\n2\n");
    expect(text(r).length).toBeLessThanOrEqual(31_000);
    expect(text(r)).toContain("characters truncated");
    expect(readFileSync(sh.outputFile, "utf8")).toStartWith("1\n2\n3\n");
  });
});
