// hooks/examples/*.sh (issue 4 item 8), each wired as a user would and run by the compiled binary.
import { beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { repoRoot, yokeBin } from "../helpers/binary.ts";
import { bashCall, hook, hooksProject, project, requestText, runWith, say, script } from "./hooks-helpers.ts";

const example = (name: string) => join(repoRoot(), "hooks", "examples", name);

beforeAll(() => {
  yokeBin();
});

test("bash-guard.sh blocks `rm -rf /` and a force push with exit 2; the model is told why", async () => {
  const cwd = hooksProject(hook("PreToolUse", example("bash-guard.sh"), "Bash"));
  // No allow rule: should the guard ever let these through, default mode still denies them headless.
  const r = await runWith(cwd, [bashCall("rm -rf /"), bashCall("git push --force origin main"), say("I will not.")], ["--output-format", "json"]);
  expect(r.code).toBe(0); // a hook denial ends in success, as in Claude Code (exit 3 only with --exit-code-on-denial)
  const rm = toolResultsOf(r.requests[1]!)[0]!;
  expect(rm.is_error).toBe(true);
  expect(rm.text).toStartWith(`PreToolUse:Bash hook error: [${example("bash-guard.sh")}]: bash-guard: recursive forced delete`);
  const push = toolResultsOf(r.requests[2]!)[0]!;
  expect(push.text).toContain("bash-guard: force push rewrites shared history");
  expect(r.json.permission_denials.map((d: any) => d.tool_input.command)).toEqual(["rm -rf /", "git push --force origin main"]);
});

test("bash-guard.sh lets an ordinary command through", async () => {
  const cwd = hooksProject(hook("PreToolUse", example("bash-guard.sh"), "Bash"));
  const r = await runWith(cwd, [bashCall("echo safe > ok.txt"), say("ok")], ["--allowedTools", "Bash"]);
  expect(r.code).toBe(0);
  expect(readFileSync(join(cwd, "ok.txt"), "utf8")).toBe("safe\n");
});

test("format-on-write.sh runs the project's formatter on the file a Write or Edit touched", async () => {
  const cwd = hooksProject(hook("PostToolUse", example("format-on-write.sh"), "Write|Edit"));
  // A stand-in prettier in the project's node_modules/.bin, which the example prefers: records its args, "formats" the file.
  script(cwd, "node_modules/.bin/prettier", `echo "$@" >> "${cwd}/prettier.log"; f="\${@: -1}"; tr a-z A-Z < "$f" > "$f.tmp" && mv "$f.tmp" "$f"`);
  const file = join(cwd, "src.ts");
  const r = await runWith(
    cwd,
    [
      { content: [{ type: "tool_use", name: "Write", input: { file_path: file, content: "const a = 1;\n" } }] },
      { content: [{ type: "tool_use", name: "Read", input: { file_path: join(cwd, "prettier.log") } }] },
      say("ok"),
    ],
    ["--permission-mode", "acceptEdits"],
  );
  expect(r.code).toBe(0);
  expect(readFileSync(file, "utf8")).toBe("CONST A = 1;\n");
  expect(readFileSync(join(cwd, "prettier.log"), "utf8")).toBe(`--write --log-level warn ${file}\n`);
  // Read is not matched by `Write|Edit`: no second formatter run.
  expect(readFileSync(join(cwd, "prettier.log"), "utf8").trim().split("\n")).toHaveLength(1);
});

test("stop-until-tests-pass.sh sends the model back with the failure until the test command passes", async () => {
  const cwd = project({
    env: { YOKE_TEST_COMMAND: 'test -f fixed.txt || { echo "FAIL: fixed.txt is missing"; exit 1; }' },
    hooks: hook("Stop", example("stop-until-tests-pass.sh")),
  });
  const r = await runWith(
    cwd,
    [say("All done."), { content: [{ type: "tool_use", name: "Write", input: { file_path: join(cwd, "fixed.txt"), content: "ok\n" } }] }, say("Fixed, tests pass.")],
    ["--output-format", "json", "--permission-mode", "acceptEdits"],
  );
  expect(r.code).toBe(0);
  expect(r.requests).toHaveLength(3);
  const feedback = requestText(r.requests[1]!);
  expect(feedback).toContain("Stop hook feedback:");
  expect(feedback).toContain("The tests are failing");
  expect(feedback).toContain("FAIL: fixed.txt is missing");
  expect(existsSync(join(cwd, "fixed.txt"))).toBe(true);
  expect(r.json).toMatchObject({ is_error: false, result: "Fixed, tests pass.", num_turns: 3 });
});

test("stop-until-tests-pass.sh lets the model stop at once when the tests pass", async () => {
  const cwd = project({ env: { YOKE_TEST_COMMAND: "true" }, hooks: hook("Stop", example("stop-until-tests-pass.sh")) });
  const r = await runWith(cwd, [say("All done.")], ["--output-format", "json"]);
  expect(r.requests).toHaveLength(1);
  expect(r.json).toMatchObject({ is_error: false, result: "All done.", num_turns: 1 });
});
