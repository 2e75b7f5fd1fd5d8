/**
 * The OS layer around Bash: one factory the composition root calls. Policy from the permission
 * rules (policy.ts), availability (probe.ts), the library backend (runtime.ts).
 */
import type { SandboxSettings } from "../config/schema.ts";
import { join } from "node:path";
import { userHome } from "../util/home.ts";
import { buildPolicy, credentialPaths, type PolicyInput } from "./policy.ts";
import { probeSandbox, sandboxWish, type SandboxWish } from "./probe.ts";
import { deniedInHistory } from "./history.ts";
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
 */
export async function createBashSandbox(o: {
  settings?: SandboxSettings;
  env: Record<string, string | undefined>;
  rules: PolicyInput["rules"];
  workingDirectories: string[];
  scratch: string[];
  yokeDir: string;
  /** Claude Code's config folder (`~/.claude` or CLAUDE_CONFIG_DIR): hidden with the other credential stores. */
  claudeDir?: string;
}): Promise<SandboxSetup> {
  const wish = sandboxWish(o.settings, o.env);
  if (wish.want === "off") return { ...inactiveSandbox(wish.why), wish };
  const home = userHome(o.env);
  const policy = buildPolicy({
    rules: o.rules,
    workingDirectories: o.workingDirectories,
    settings: o.settings,
    scratch: o.scratch,
    hidden: credentialPaths(home, [o.yokeDir, ...(o.claudeDir ? [o.claudeDir] : [])]),
    reopened: [join(o.yokeDir, "sandbox"), join(o.yokeDir, "session-env")],
  });
  const net = o.settings?.network;
  const availability = await probeSandbox({
    settings: o.settings,
    env: o.env,
    network: policy.allowedDomains.length > 0 || net?.httpProxyPort !== undefined || net?.socksProxyPort !== undefined,
  });
  if (!availability.ok) {
    if (wish.want === "on" && wish.required)
      throw new SandboxUnavailableError(
        `the Bash sandbox was required (${o.env.YOKE_SANDBOX ? `YOKE_SANDBOX=${o.env.YOKE_SANDBOX}` : "sandbox settings"}) but cannot start: ${availability.reason}`,
      );
    return { ...inactiveSandbox(availability.reason), availability, wish };
  }
  const sb = activeSandbox({ settings: o.settings, wish, availability, policy, yokeDir: o.yokeDir });
  const leaked = sb.autoAllow ? await deniedInHistory(o.workingDirectories, policy.denyRead) : undefined;
  if (!leaked) return { ...sb, wish };
  return {
    ...sb,
    autoAllow: false,
    wish,
    notice: `${leaked} is in the git history; the sandbox hides files, not history, so Bash commands are asked about as without it (autoAllowBashIfSandboxed is withheld)`,
  };
}
