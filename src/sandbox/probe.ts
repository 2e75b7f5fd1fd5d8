/**
 * Whether the kernel sandbox is wanted (settings, YOKE_SANDBOX) and whether it can start on this
 * machine. Never throws: every answer is data with a reason a person can act on.
 */
import type { SandboxSettings } from "../config/schema.ts";
import { runProcess } from "../util/subprocess.ts";
import { sandboxDeps } from "./deps.ts";
import { helperFolderProblem } from "./helpers.ts";

export { type SandboxWish, sandboxWish, wslVersion } from "./deps.ts";

export type Availability =
  | { ok: true; platform: "linux"; bwrap: string; version: string; socat: string; rg: string }
  | { ok: true; platform: "macos" }
  | { ok: false; reason: string };

/**
 * Checks what the sandbox library checks before it starts (SandboxManager.initialize's checkDependencies in
 * @anthropic-ai/sandbox-runtime; test/sandbox/probe-deps.test.ts holds the two to the same answer): on macOS, Seatbelt
 * alone; on Linux, not WSL 1, then ripgrep, bubblewrap and socat, each where settings put it or on the PATH. socat is
 * wanted at every start, not only when some host is allowed: the library refuses to start without it. Then the
 * helpers yoke hands it (the seccomp filter's loader), and one empty bubblewrap sandbox with the namespaces a command
 * gets, so a container without user namespaces (or root without CAP_SETFCAP, which the library also refuses) is found
 * before the first command rather than at it.
 */
export async function probeSandbox(o: { settings?: SandboxSettings; env: Record<string, string | undefined>; yokeDir?: string }): Promise<Availability> {
  const deps = sandboxDeps(o.settings, o.env);
  if (!deps.ok) return deps;
  if (deps.platform === "macos") return deps;
  const { bwrap, socat, rg } = deps;
  const helpers = o.yokeDir ? helperFolderProblem(o.yokeDir) : undefined;
  if (helpers) return { ok: false, reason: helpers };
  const p = await runProcess(
    [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-user", "--unshare-pid", "--unshare-net", "--die-with-parent", "--", "/bin/sh", "-c", "exit 0"],
    { stdout: "ignore", env: { PATH: "/usr/bin:/bin" }, timeoutMs: 10_000 },
  );
  if (p.error) return { ok: false, reason: `bubblewrap could not be started: ${p.error}` };
  if (p.code !== 0) {
    const line = p.timedOut ? "no answer within 10 s" : p.stderr.trim().split("\n")[0] || `exit code ${p.code}`;
    // The library's own refusal for this case (uid0SandboxError): the kernel maps uid 0 only for a holder of CAP_SETFCAP.
    if (process.geteuid?.() === 0 && /uid map/.test(line))
      return { ok: false, reason: `bubblewrap cannot map uid 0 (${line}): yoke runs as root without CAP_SETFCAP; grant it, or run as a non-root user` };
    return { ok: false, reason: `bubblewrap cannot create its namespaces here (${line}); user namespaces may be off in this container` };
  }
  const v = await runProcess([bwrap, "--version"], { stderr: "ignore", timeoutMs: 10_000 });
  return { ok: true, platform: "linux", bwrap, version: v.stdout.trim().replace(/^bubblewrap\s*/, ""), socat, rg };
}
