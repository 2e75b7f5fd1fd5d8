/**
 * The synchronous half of the sandbox probe (probe.ts): what the settings and environment ask for, and whether the
 * programs the sandbox library checks for are there. Light (no helper files, no subprocess), so run-prelude.ts can
 * refuse a run whose required sandbox cannot start before any MCP server is spawned. Never throws.
 */
import { accessSync, constants, readFileSync, statSync } from "node:fs";
import type { SandboxSettings } from "../config/schema.ts";

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

const executable = (p: string): boolean => {
  try {
    accessSync(p, constants.X_OK);
    // A folder passes X_OK; bubblewrap's start would then fail after the servers are spawned.
    return statSync(p).isFile();
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

/** What the library checks before it starts, up to (not including) the helpers and the bubblewrap start. */
export type SandboxDeps = { ok: true; platform: "linux"; bwrap: string; socat: string; rg: string } | { ok: true; platform: "macos" } | { ok: false; reason: string };

/**
 * On macOS, Seatbelt alone; on Linux, not WSL 1, then ripgrep, bubblewrap and socat, each where settings put it or on
 * the PATH (probe.ts says why each).
 */
export function sandboxDeps(settings: SandboxSettings | undefined, env: Record<string, string | undefined>): SandboxDeps {
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
  const rg = tool("rg", undefined, "ripgrep", env);
  const bwrap = tool("bwrap", settings?.bwrapPath, "bwrapPath", env);
  if (bwrap.problem) return { ok: false, reason: bwrap.problem };
  if (!bwrap.path) missing.push("bubblewrap (bwrap)");
  const socat = tool("socat", settings?.socatPath, "socatPath", env);
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
  return { ok: true, platform: "linux", bwrap: bwrap.path!, socat: socat.path!, rg: rg.path! };
}

/** The refusal of a run whose required sandbox cannot start (one wording, before and after the spawn). */
export const requiredSandboxMessage = (env: Record<string, string | undefined>, reason: string): string =>
  `the Bash sandbox was required (${env.YOKE_SANDBOX ? `YOKE_SANDBOX=${env.YOKE_SANDBOX}` : "sandbox settings"}) but cannot start: ${reason}`;
