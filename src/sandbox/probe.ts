/**
 * Whether the kernel sandbox is wanted (settings, YOKE_SANDBOX) and whether it can start on this
 * machine. Never throws: every answer is data with a reason a person can act on.
 */
import { accessSync, constants, readFileSync } from "node:fs";
import type { SandboxSettings } from "../config/schema.ts";
import { runProcess } from "../util/subprocess.ts";
import { helperFolderProblem } from "./helpers.ts";

/** What the settings and the environment ask for. */
export type SandboxWish =
  | { want: "off"; why: string }
  /** On wherever it can start; where it cannot, the run says so once and the static checks stand alone. */
  | { want: "auto" }
  /** Asked for explicitly; `required` makes an unavailable sandbox end the run. */
  | { want: "on"; required: boolean };

/** `YOKE_SANDBOX=0|off|false` forces it off, `=1|on|true` requires it; else `sandbox.enabled`, default on where possible. */
export function sandboxWish(s: SandboxSettings | undefined, env: Record<string, string | undefined>): SandboxWish {
  const e = (env.YOKE_SANDBOX ?? "").trim().toLowerCase();
  if (["0", "off", "false", "no"].includes(e)) return { want: "off", why: `YOKE_SANDBOX=${env.YOKE_SANDBOX}` };
  if (["1", "on", "true", "yes"].includes(e)) return { want: "on", required: true };
  if (s?.enabled === false) return { want: "off", why: "sandbox.enabled is false in settings" };
  // Stricter than Claude Code: a sandbox asked for by name is required unless failIfUnavailable says otherwise.
  if (s?.enabled === true) return { want: "on", required: s.failIfUnavailable !== false };
  return s?.failIfUnavailable === true ? { want: "on", required: true } : { want: "auto" };
}

export type Availability =
  | { ok: true; platform: "linux"; bwrap: string; version: string; socat: string; rg: string }
  | { ok: true; platform: "macos" }
  | { ok: false; reason: string };

const executable = (p: string): boolean => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

function tool(name: string, configured: string | undefined, key: string, env: Record<string, string | undefined>): { path?: string; problem?: string } {
  if (configured) return executable(configured) ? { path: configured } : { problem: `sandbox.${key} ${configured} is not an executable file` };
  const found = Bun.which(name, { PATH: env.PATH ?? "/usr/local/bin:/usr/bin:/bin" });
  return found ? { path: found } : {};
}

/** WSL's version from /proc/version's text ("1" for the original WSL, whose kernel has no namespaces for bubblewrap). */
export function wslVersion(procVersion: string): string | undefined {
  const m = /WSL(\d+)/i.exec(procVersion);
  if (m) return m[1];
  return procVersion.toLowerCase().includes("microsoft") ? "1" : undefined;
}

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
  // On macOS the library checks nothing: Seatbelt profiles take the deny patterns as they are, so no ripgrep either.
  if (process.platform === "darwin") {
    if (!executable("/usr/bin/sandbox-exec")) return { ok: false, reason: "/usr/bin/sandbox-exec is missing" };
    return { ok: true, platform: "macos" };
  }
  if (process.platform !== "linux") return { ok: false, reason: `no kernel sandbox for ${process.platform} (Linux needs bubblewrap, macOS has Seatbelt)` };
  let procVersion = "";
  try {
    procVersion = readFileSync("/proc/version", "utf8");
  } catch {}
  if (wslVersion(procVersion) === "1") return { ok: false, reason: "WSL 1 cannot run bubblewrap (WSL 2 can: wsl --set-version <distro> 2)" };
  const missing: string[] = [];
  const rg = tool("rg", undefined, "ripgrep", o.env);
  const bwrap = tool("bwrap", o.settings?.bwrapPath, "bwrapPath", o.env);
  if (bwrap.problem) return { ok: false, reason: bwrap.problem };
  if (!bwrap.path) missing.push("bubblewrap (bwrap)");
  const socat = tool("socat", o.settings?.socatPath, "socatPath", o.env);
  if (socat.problem) return { ok: false, reason: socat.problem };
  if (!socat.path) missing.push("socat");
  if (!rg.path) missing.push("ripgrep (rg)");
  if (missing.length) {
    const pkgs = missing.map((m) => m.replace(/ \(.*/, ""));
    return {
      ok: false,
      reason: `${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} not installed (apt-get install ${pkgs.join(" ")}); the sandbox library checks for bubblewrap, ripgrep and socat at every start`,
    };
  }
  const helpers = o.yokeDir ? helperFolderProblem(o.yokeDir) : undefined;
  if (helpers) return { ok: false, reason: helpers };
  const p = await runProcess(
    [bwrap.path!, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-user", "--unshare-pid", "--unshare-net", "--die-with-parent", "--", "/bin/sh", "-c", "exit 0"],
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
  const v = await runProcess([bwrap.path!, "--version"], { stderr: "ignore", timeoutMs: 10_000 });
  return { ok: true, platform: "linux", bwrap: bwrap.path!, version: v.stdout.trim().replace(/^bubblewrap\s*/, ""), socat: socat.path!, rg: rg.path! };
}
