/**
 * The kernel layer around Bash, on @anthropic-ai/sandbox-runtime (bubblewrap + seccomp on Linux,
 * Seatbelt on macOS, a filtering proxy for allowed hosts). One per process: the library keeps its
 * state in a module singleton. Loaded on the first sandboxed command, so runs without Bash never pay.
 */
import { existsSync, lstatSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { userHome } from "../util/home.ts";
import type { SandboxSettings } from "../config/schema.ts";
import { helperPaths } from "./helpers.ts";
import { expandDenyWriteGlobs, type SandboxPolicy } from "./policy.ts";
import type { Availability, SandboxWish } from "./probe.ts";

export type BashSandboxInput = { command: string; dangerouslyDisableSandbox?: boolean };

/** `placeholders`: protected names the command may not create; pass them to `release` after it ran. */
export type WrapResult = { ok: true; command: string; placeholders: string[] } | { ok: false; error: string };

/** What the Bash tool and the permission evaluator see. Every method is safe to call when inactive. */
export type BashSandbox = {
  /** True when Bash commands run inside the kernel sandbox. */
  readonly active: boolean;
  /** Why it is not active (a setting, YOKE_SANDBOX, or what is missing on this machine). */
  readonly reason?: string;
  /** `autoAllowBashIfSandboxed`: a sandboxed command that would ask runs without asking (deny and ask rules still hold). */
  readonly autoAllow: boolean;
  readonly policy?: SandboxPolicy;
  readonly availability?: Availability;
  /** Whether this call runs inside: not for `excludedCommands`, nor with `dangerouslyDisableSandbox` where settings allow it. */
  covers(input: BashSandboxInput): boolean;
  /**
   * The shell command that runs `inner` (a complete shell command line) inside the sandbox, with `cwd`
   * as its directory. Never throws: a failure comes back as `{ ok: false, error }` naming the cause,
   * and the caller must not run the command.
   */
  wrap(inner: string, cwd: string): Promise<WrapResult>;
  /**
   * Call once per wrapped command after it ended: removes the mount points bubblewrap left on the host,
   * and any protected name from `placeholders` the command created. Returns the names it removed.
   */
  release(placeholders?: string[]): string[];
  /** Stops the proxy servers. Never throws. */
  shutdown(): Promise<void>;
};

/** The command names in `excludedCommands` (`docker`, `docker:*`, `docker *`) at the start of any part of a command. */
export function isExcluded(command: string, excluded: string[]): boolean {
  if (!excluded.length) return false;
  const parts = command.split(/&&|\|\||[;|&\n]/).map((p) => p.trim()).filter(Boolean);
  return excluded.some((raw) => {
    const e = raw.replace(/(:\*| \*)$/, "").trim();
    return !!e && parts.some((p) => p === e || p.startsWith(`${e} `));
  });
}

export function inactiveSandbox(reason: string): BashSandbox {
  return {
    active: false,
    reason,
    autoAllow: false,
    covers: () => false,
    wrap: async () => ({ ok: false, error: `the sandbox is off: ${reason}` }),
    release: () => [],
    shutdown: async () => {},
  };
}

type Srt = typeof import("@anthropic-ai/sandbox-runtime");

/**
 * An active sandbox for a machine where the probe said it can start. The library is initialised on
 * the first `wrap`; a failure there is reported on every later wrap, and nothing runs unsandboxed.
 */
export function activeSandbox(o: {
  settings?: SandboxSettings;
  wish: SandboxWish;
  availability: Extract<Availability, { ok: true }>;
  policy: SandboxPolicy;
  yokeDir: string;
}): BashSandbox {
  const s = o.settings ?? {};
  const excluded = s.excludedCommands ?? [];
  const mayLeave = s.allowUnsandboxedCommands !== false;
  const net = s.network ?? {};
  // Without an allowed host no proxy is needed: the command gets no network at all, and skips socat's start-up.
  const proxied = o.policy.allowedDomains.length > 0 || net.httpProxyPort !== undefined || net.socksProxyPort !== undefined;
  const bwrap = o.availability.platform === "linux" ? o.availability.bwrap : undefined;
  let ready: Promise<Srt> | undefined;
  let failure: string | undefined;
  let pendingRelease = 0;

  const config = async (): Promise<Parameters<Srt["SandboxManager"]["initialize"]>[0]> => {
    const helpers = await helperPaths(o.yokeDir);
    const readOnly = [helpers.applySeccomp, helpers.javaAgent].filter((p): p is string => !!p).map((p) => dirname(p));
    return {
      network: {
        ...(proxied || !bwrap ? { allowedDomains: o.policy.allowedDomains } : {}),
        deniedDomains: o.policy.deniedDomains,
        ...(net.allowUnixSockets ? { allowUnixSockets: net.allowUnixSockets } : {}),
        ...(net.allowAllUnixSockets !== undefined ? { allowAllUnixSockets: net.allowAllUnixSockets } : {}),
        ...(net.allowLocalBinding !== undefined ? { allowLocalBinding: net.allowLocalBinding } : {}),
        ...(net.httpProxyPort !== undefined ? { httpProxyPort: net.httpProxyPort } : {}),
        ...(net.socksProxyPort !== undefined ? { socksProxyPort: net.socksProxyPort } : {}),
      },
      filesystem: {
        denyRead: o.policy.denyRead,
        allowRead: o.policy.allowRead,
        allowWrite: o.policy.allowWrite,
        denyWrite: [...o.policy.denyWrite, ...readOnly],
      },
      ...(s.enableWeakerNestedSandbox !== undefined ? { enableWeakerNestedSandbox: s.enableWeakerNestedSandbox } : {}),
      ...(s.allowNestedUserNamespaces !== undefined ? { allowNestedUserNamespaces: s.allowNestedUserNamespaces } : {}),
      ...(bwrap ? { bwrapPath: bwrap } : {}),
      ...(o.availability.platform === "linux" && o.availability.socat ? { socatPath: o.availability.socat } : {}),
      ...(o.availability.platform === "linux" && helpers.applySeccomp ? { seccomp: { applyPath: helpers.applySeccomp } } : {}),
      ...(helpers.javaAgent ? { javaAgentJarPath: helpers.javaAgent } : {}),
      ripgrep: { command: o.availability.rg },
    } as Parameters<Srt["SandboxManager"]["initialize"]>[0];
  };

  const start = (): Promise<Srt> =>
    (ready ??= (async () => {
      const srt = await import("@anthropic-ai/sandbox-runtime");
      await srt.SandboxManager.initialize(await config());
      return srt;
    })());

  let lastDenyGlobs = "";
  return {
    active: true,
    autoAllow: s.autoAllowBashIfSandboxed === true || (s.autoAllowBashIfSandboxed === undefined && s.enabled === true),
    policy: o.policy,
    availability: o.availability,
    covers: (input) => !(mayLeave && input.dangerouslyDisableSandbox === true) && !isExcluded(input.command, excluded),
    async wrap(inner, cwd) {
      if (failure) return { ok: false, error: failure };
      let srt: Srt;
      try {
        srt = await start();
      } catch (e) {
        failure = `the sandbox could not be set up: ${(e as Error).message.split("\n")[0]}`;
        return { ok: false, error: failure };
      }
      try {
        if (o.policy.denyWriteGlobs.length) {
          // Edit deny globs are pinned as the files that exist now; a new match is pinned from the next command on.
          const extra = expandDenyWriteGlobs(o.policy.denyWriteGlobs);
          const key = extra.join("\0");
          if (key !== lastDenyGlobs) {
            lastDenyGlobs = key;
            const c = await config();
            c.filesystem.denyWrite = [...c.filesystem.denyWrite, ...extra];
            srt.SandboxManager.updateConfig(c);
          }
        }
        const shell = "/bin/sh";
        let command = await srt.SandboxManager.wrapWithSandbox(`cd ${quote(cwd)} && ${inner}`, shell);
        pendingRelease++;
        const placeholders: string[] = [];
        if (bwrap) command = stripPlaceholders(command, o.policy.allowWrite, placeholders);
        if (bwrap && !proxied) {
          if (!command.startsWith(`${bwrap} `)) return { ok: false, error: `the sandbox library returned a command that does not start with ${bwrap}` };
          command = `${bwrap} --unshare-net ${command.slice(bwrap.length + 1)}`;
        }
        return { ok: true, command, placeholders };
      } catch (e) {
        return { ok: false, error: `the sandbox could not wrap the command: ${(e as Error).message.split("\n")[0]}` };
      }
    },
    release(placeholders = []) {
      const removed: string[] = [];
      for (const p of placeholders) {
        if (!existsSync(p) && !isLink(p)) continue;
        try {
          rmSync(p, { recursive: true, force: true });
          removed.push(p);
        } catch {}
      }
      if (pendingRelease <= 0 || !ready) return removed;
      pendingRelease--;
      void ready.then((srt) => srt.SandboxManager.cleanupAfterCommand()).catch(() => {});
      return removed;
    },
    async shutdown() {
      if (!ready) return;
      try {
        await (await ready).SandboxManager.reset();
      } catch {}
    },
  };
}

/** Names the library keeps unwritable in every writable folder (its mandatory denies), where they sit at the top. */
const PROTECTED_NAMES = [".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile", ".ripgreprc", ".mcp.json", ".vscode", ".idea"];
const PROTECTED_CLAUDE = [".claude/commands", ".claude/agents"];

const isLink = (p: string) => {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
};

/**
 * The library denies a protected name that does not exist yet by binding /dev/null over it, so inside the
 * sandbox `.bashrc`, `.mcp.json`, `.vscode` … appear as character devices in every project, and
 * `git add -A` fails on them. Where the name is absent in a writable root (not the home folder), the
 * bind is dropped; `release` removes whatever the command created there instead, so the name still
 * cannot be made. Binds written in a form we do not recognise stay (the safe side).
 */
export function stripPlaceholders(command: string, roots: string[], out: string[]): string {
  const home = userHome();
  const seen = new Set<string>();
  for (const root of roots) {
    if (root === home || seen.has(root) || !existsSync(root)) continue;
    seen.add(root);
    const names = existsSync(join(root, ".claude")) ? [...PROTECTED_NAMES, ...PROTECTED_CLAUDE] : PROTECTED_NAMES;
    for (const n of names) {
      const p = join(root, n);
      if (existsSync(p) || isLink(p)) continue;
      // Absent now: whatever the command creates here is removed after it (the library only guards the
      // folder yoke was started in, and there with a bind that breaks `git add -A`).
      out.push(p);
      const bind = ` --ro-bind /dev/null ${p} `;
      if (/^[\w./-]+$/.test(p) && command.includes(bind)) command = command.replace(bind, " ");
    }
  }
  return command;
}

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;
