// Issue 17 point 2: what a background hook says later reaches the model as Claude Code 2.1.332 delivers it (observed in
// 2.1.332: a PostToolUse hook printing {"async":true}, then {"systemMessage", additionalContext}: both arrive, joined
// by a newline, with the first request after the hook finished, within the same turn).
import { beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { yokeBin } from "../helpers/binary.ts";
import { bashCall, hook, hooksProject, requestText, runWith, say, script } from "./hooks-helpers.ts";

// Each test runs the compiled binary (some several times): seconds apiece on a loaded 2-core machine.

beforeAll(() => void yokeBin());

describe("async hook output (issue 17.2, observed in 2.1.332)", () => {
  test.each([
    ["the async first line", `echo '{"async":true}'`, (slow: string) => hook("PostToolUse", slow, "Bash")],
    ['the "async" setting', "", (slow: string) => hook("PostToolUse", slow, "Bash", { async: true })],
  ])("%s: systemMessage and additionalContext reach the model with a later request of the same turn", { timeout: 120_000 }, async (_name, first, settings) => {
    const cwd = hooksProject({});
    const gate = join(cwd, "gate");
    const gone = join(cwd, "gone");
    // Barriers, no timing: the hook answers once the second Bash call opened the gate, then exits; the second call
    // returns only when the hook process is gone, and one more tool round trip follows before the checked request.
    const slow = script(
      cwd,
      "slow.sh",
      // Only the first call's hook waits, told by its payload: a check of the gate would race with a hook that yoke
      // starts in the background ("async" setting) and that gets to run only after the second call opened the gate.
      `in=$(cat); case "$in" in *'"echo first"'*) ;; *) exit 0 ;; esac; ${first}\nwhile [ ! -e ${gate} ]; do sleep 0.05; done\necho '{"systemMessage":"late sys","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"late ctx"}}'\ntouch ${gone}`,
    );
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: settings(slow) }));
    // A generous bound: under a loaded train the polling loops and four requests are slow, which is not a hang.
    const r = await runWith(cwd, [bashCall("echo first"), bashCall(`touch ${gate}; while [ ! -e ${gone} ]; do sleep 0.05; done`), bashCall("true"), say("done")], ["--allowedTools", "Bash"], {
      timeoutMs: 90_000,
    });
    expect(r.code).toBe(0);
    expect(requestText(r.requests[1]!)).not.toContain("late ctx");
    expect(requestText(r.requests[3]!)).toContain("<system-reminder>\nlate sys\nlate ctx\n</system-reminder>");
  });
});
