// internals §7: attribution texts and their settings.
import { describe, expect, test } from "bun:test";
import { attributionTexts, DEFAULT_PR_LINE, gitInstructionsOn, gitSection, publicModelName } from "../../plugins/attribution/index.ts";

describe("attribution plugin (internals §7)", () => {
  const model = "claude-opus-5-5";
  test.each([
    [{}, "Co-Authored-By: Claude Opus 5.5 <noreply@anthropic.com>", DEFAULT_PR_LINE],
    [{ includeCoAuthoredBy: false }, "", ""],
    [{ attribution: { commit: "" } }, "", DEFAULT_PR_LINE],
    [{ attribution: { pr: "" } }, "Co-Authored-By: Claude Opus 5.5 <noreply@anthropic.com>", ""],
    [{ attribution: { commit: "Signed: bot" }, includeCoAuthoredBy: false }, "Signed: bot", DEFAULT_PR_LINE],
    [{ attribution: false }, "", ""],
  ])("%j", (settings, commit, pr) => {
    expect(attributionTexts(settings as never, model)).toEqual({ commit, pr });
  });
  test.each([
    [{}, {}, true],
    [{ CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: "1" }, {}, false],
    [{ CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: "true" }, { includeGitInstructions: true }, false],
    [{}, { includeGitInstructions: false }, false],
    // the environment decides first in both directions
    [{ CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: "0" }, { includeGitInstructions: false }, true],
    [{ CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: "false" }, { includeGitInstructions: false }, true],
  ])("git instructions: env %j, settings %j → %p", (env, settings, on) => {
    expect(gitInstructionsOn(env, settings as never)).toBe(on);
  });
  test("model names", () => {
    expect(publicModelName("claude-sonnet-4-5-20250929")).toBe("Claude Sonnet 4.5");
    expect(publicModelName("claude-fable-5")).toBe("Claude Fable 5");
    expect(publicModelName("gpt-x")).toBe("Claude");
  });
  test("section says to omit the trailer when hidden", () => {
    expect(gitSection({ commit: "", pr: "" })).toContain("without any co-author trailer");
    expect(gitSection({ commit: "T: x", pr: "F" })).toContain("T: x");
  });
});
