/**
 * The OS layer around Bash: one factory the composition root calls. Policy from the permission
 * rules (policy.ts), availability (probe.ts), the library backend (runtime.ts).
 */
import type { SandboxSettings } from "../config/schema.ts";
import { join } from "node:path";
import { userHome } from "../util/home.ts";
import { buildPolicy, credentialPaths, type PolicyInput, type SandboxPolicy } from "./policy.ts";
import { requiredSandboxMessage } from "./deps.ts";
import { probeSandbox, sandboxWish, type SandboxWish } from "./probe.ts";
import { deniedInHistory, deniedInHistorySync } from "./history.ts";
import { activeSandbox, type BashSandbox, inactiveSandbox } from "./runtime.ts";

export { buildPolicy, ruleTargets, type SandboxPolicy } from "./policy.ts";
export { probeSandbox, sandboxWish, type Availability, type SandboxWish } from "./probe.ts";
export { isExcluded, inactiveSandbox, type BashSandbox, type BashSandboxInput, type WrapResult } from "./runtime.ts";

/** The sandbox was asked for (`sandbox.enabled: true`, `failIfUnavailable`, YOKE_SANDBOX=1) and cannot start here. */
export class SandboxUnavailableError extends Error {}

/** `notice`: something the run must say once (why auto-allow is withheld). */
export type SandboxSetup = BashSandbox & { wish: SandboxWish; notice?: string };

/**
 * The session's Bash sandbox. Throws SandboxUnavailableError only when it was required and cannot
 * start; otherwise an unavailable sandbox comes back inactive with the reason.
 *
 * `rules` may be a getter: rules added while the session runs (the SDK host's `addRules`, a permission
 * answer) change the policy of the next sandboxed command, and withhold auto-allow when a newly
 * Read-denied file is in the git history.
 */
export async function createBashSandbox(o: {
  settings?: SandboxSettings;
  env: Record<string, string | undefined>;
  rules: PolicyInput["rules"] | (() => PolicyInput["rules"]);
  workingDirectories: string[];
  scratch: string[];
  yokeDir: string;
  /** Claude Code's config folder (`~/.claude` or CLAUDE_CONFIG_DIR): hidden with the other credential stores. */
  claudeDir?: string;
  /** Says something once while the session runs (a denied file found in the history after a rule change). */
  warn?: (line: string) => void;
}): Promise<SandboxSetup> {
  const wish = sandboxWish(o.settings, o.env);
  if (wish.want === "off") return { ...inactiveSandbox(wish.why), wish };
  const home = userHome(o.env);
  const rulesNow = typeof o.rules === "function" ? o.rules : () => o.rules as PolicyInput["rules"];
  const build = (rules: PolicyInput["rules"]) =>
    buildPolicy({
      rules,
      workingDirectories: o.workingDirectories,
      settings: o.settings,
      scratch: o.scratch,
      hidden: credentialPaths(home, [o.yokeDir, ...(o.claudeDir ? [o.claudeDir] : [])]),
      reopened: [join(o.yokeDir, "sandbox"), join(o.yokeDir, "session-env")],
    });
  let rules = rulesNow();
  let policy = build(rules);
  // bubblewrap, socat and ripgrep are found on the PATH yoke started with, as runtime.ts finds its own tools: a settings
  // env PATH (a checkout's) would otherwise choose the program the sandbox is, and a "bwrap" that runs the command as
  // it is would pass for one.
  const availability = await probeSandbox({ settings: o.settings, env: { ...o.env, PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin" }, yokeDir: o.yokeDir });
  if (!availability.ok) {
    if (wish.want === "on" && wish.required)
      throw new SandboxUnavailableError(requiredSandboxMessage(o.env, availability.reason));
    return { ...inactiveSandbox(availability.reason), availability, wish };
  }
  const leakNotice = (file: string) =>
    `${file} is in the git history; the sandbox hides files, not history, so Bash commands are asked about as without it (autoAllowBashIfSandboxed is withheld)`;
  // The policy follows the rules: rebuilt when the evaluator's rule set is a new one.
  let leaked: string | undefined;
  const current = (): SandboxPolicy => {
    const r = rulesNow();
    if (r === rules) return policy;
    const before = new Set(policy.denyRead);
    rules = r;
    policy = build(r);
    const added = policy.denyRead.filter((p) => !before.has(p));
    if (sb.autoAllow && !leaked && added.length) {
      leaked = deniedInHistorySync(o.workingDirectories, added);
      if (leaked) o.warn?.(leakNotice(leaked));
    }
    return policy;
  };
  const sb = activeSandbox({ settings: o.settings, wish, availability, policy: current, yokeDir: o.yokeDir });
  leaked = sb.autoAllow ? await deniedInHistory(o.workingDirectories, policy.denyRead) : undefined;
  const notice = leaked ? leakNotice(leaked) : undefined;
  // Getters, not copies: the policy and auto-allow change with the rules.
  return {
    active: true,
    get autoAllow() {
      current();
      return sb.autoAllow && !leaked;
    },
    get policy() {
      return current();
    },
    availability,
    covers: sb.covers,
    wrap: sb.wrap,
    notStarted: sb.notStarted,
    release: sb.release,
    shutdown: sb.shutdown,
    stats: sb.stats,
    wish,
    ...(notice ? { notice } : {}),
  };
}
