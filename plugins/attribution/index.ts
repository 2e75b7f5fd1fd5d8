import type { Plugin, PluginHost } from "yoke";

type Settings = PluginHost["settings"];
import { switchedOn } from "../shared/switch.ts";

/** "claude-opus-5-5" → "Claude Opus 5.5"; an id we cannot read falls back to plain "Claude". */
export function publicModelName(id: string): string {
  const m = /claude-([a-z]+)-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?$/.exec(id);
  if (!m) return "Claude";
  const family = m[1]!.charAt(0).toUpperCase() + m[1]!.slice(1);
  return `Claude ${family} ${m[2]}${m[3] ? `.${m[3]}` : ""}`;
}

export const DEFAULT_PR_LINE = "🤖 Generated with yoke";

/** internals §7: the `attribution` object wins; else `includeCoAuthoredBy: false` hides both; "" hides one part. */
export function attributionTexts(settings: Settings, model: string): { commit: string; pr: string } {
  const defCommit = `Co-Authored-By: ${publicModelName(model)} <noreply@anthropic.com>`;
  const a = settings.attribution;
  if (a === false) return { commit: "", pr: "" };
  if (a && typeof a === "object") return { commit: a.commit ?? defCommit, pr: a.pr ?? DEFAULT_PR_LINE };
  if (settings.includeCoAuthoredBy === false) return { commit: "", pr: "" };
  return { commit: defCommit, pr: DEFAULT_PR_LINE };
}

export function gitSection(texts: { commit: string; pr: string }): string {
  const commitRule = texts.commit
    ? `End every commit message with a blank line and then this trailer, exactly:\n${texts.commit}`
    : "Write commit messages without any co-author trailer.";
  const prRule = texts.pr ? `End the body of every pull request you open with a blank line and then:\n${texts.pr}` : "Add no generated-by footer to pull requests.";
  return [
    "# Commits and pull requests",
    "Only commit or open a pull request when the user asks for it. Before committing, look at `git status` and `git diff` so the message describes what really changed; never commit files that look like secrets.",
    "Pass multi-line messages through a here-document (git commit -F - <<'EOF' … EOF) so quoting cannot break them.",
    commitRule,
    prRule,
  ].join("\n");
}

/** internals §7: CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS decides first, either way; then includeGitInstructions (default on). */
export function gitInstructionsOn(env: Readonly<Record<string, string | undefined>>, settings: Settings): boolean {
  const disabledBySetting = settings.includeGitInstructions === undefined ? undefined : !settings.includeGitInstructions;
  return !switchedOn(env.CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS, disabledBySetting, false);
}

const attribution: Plugin = {
  name: "attribution",
  version: "1.0.0",
  description: "Commit trailer and pull-request footer guidance (attribution, includeCoAuthoredBy settings)",
  setup(host) {
    host.systemPrompt.addSection("git", () => {
      if (!gitInstructionsOn(host.env, host.settings)) return null;
      return gitSection(attributionTexts(host.settings, host.session.model));
    });
  },
};
export default attribution;
