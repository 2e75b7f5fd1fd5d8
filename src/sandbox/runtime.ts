/**
 * The kernel layer around Bash, on @anthropic-ai/sandbox-runtime (bubblewrap + seccomp on Linux,
 * Seatbelt on macOS, a filtering proxy for allowed hosts). One per process: the library keeps its
 * state in a module singleton. Loaded on the first sandboxed command, so runs without Bash never pay.
 */
import { existsSync, lstatSync, readdirSync, rmdirSync, rmSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { userHome } from "../util/home.ts";
import type { SandboxSettings } from "../config/schema.ts";
import { helperPaths } from "./helpers.ts";
import { mountTargets } from "./bwrap-line.ts";
import { addPaths, type DiskSnapshot, holdGhosts, snapshot, unchanged } from "./fingerprint.ts";
import { type Entry, entryLine, type Holder, startHolder } from "./holder.ts";
import { startFailure } from "./start-failure.ts";
import { expandDenyWriteGlobs, type SandboxPolicy } from "./policy.ts";
import type { Availability, SandboxWish } from "./probe.ts";
import { guardLibraryChildren } from "../util/subprocess.ts";

export type BashSandboxInput = { command: string; dangerouslyDisableSandbox?: boolean };

/**
 * `placeholders`: protected names the command may not create; pass them to `release` after it ran.
 * `kept`: the command joins the kept sandbox (holder.ts) rather than starting a bubblewrap of its own.
 * `direct`: the same command as a program to start without the shell in front, and the changes that shell
 * would make to its environment (a kept sandbox's; spawnWrapped takes it).
 */
export type WrapResult = { ok: true; command: string; direct?: Entry; placeholders: string[]; kept: boolean } | { ok: false; error: string };

/**
 * `announce`: the command line says on fd 3 (which the caller opens) when the sandbox is set up and the command starts.
 * `env`: the environment the command will start with, when the caller knows it (a kept sandbox may then start the
 * command's own shell first, holder.ts).
 */
export type WrapOptions = { announce?: boolean; env?: Record<string, string | undefined> };

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
  wrap(inner: string, cwd: string, opts?: WrapOptions): Promise<WrapResult>;
  /**
   * Call when an announcing command (`WrapOptions.announce`) ended without announcing: the sandbox failed
   * before the command started. Returns what failed and what to do (start-failure.ts); a kept sandbox that
   * could not be entered is given up, so the next command starts in a bubblewrap of its own.
   */
  notStarted(kept: boolean, stderr: string): string;
  /**
   * Call once per wrapped command after it ended: removes the mount points bubblewrap left on the host,
   * and any protected name from `placeholders` the command created. Returns the names it removed.
   */
  release(placeholders?: string[]): string[];
  /** Stops the proxy servers. Never throws. */
  shutdown(): Promise<void>;
  /** How many bubblewrap lines the library built, and how many commands ran one again (bench, tests). */
  stats?(): { built: number; reused: number };
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
    notStarted: (kept, stderr) => startFailure({ kept, stderr }),
    release: () => [],
    shutdown: async () => {},
  };
}

type Srt = typeof import("@anthropic-ai/sandbox-runtime");
type SrtConfig = Parameters<Srt["SandboxManager"]["initialize"]>[0];

const GLOB = /[*?[\]{}]/;

/** What the library builds a line from beside the policy: its own write paths and the scan depth (its default). */
const SCAN_DEPTH = 4;
const libraryPaths = (home: string) => ["/tmp/claude", join(home, ".npm/_logs"), join(home, ".claude/debug"), "/etc/ssh/ssh_config.d"];

/** A bubblewrap line kept for reuse, with the disk it was built from, and the kept sandbox it runs in. */
type Built = { disk?: DiskSnapshot; line: string; placeholders: string[]; targets: string[]; ghosts: Set<string>; holder?: Holder };

/**
 * The inner command a kept line runs: it takes the command and its folder from two variables set in
 * front of the line, and removes them before the command starts, so the command's environment is as before.
 */
const INNER =
  'set -- "$__YOKE_SB_DIR" "$__YOKE_SB_RUN"; [ -z "$__YOKE_SB_SAY" ] || { printf started >&3; exec 3>&-; }; unset __YOKE_SB_DIR __YOKE_SB_RUN __YOKE_SB_SAY; cd "$1" && eval "shift 2\n$2"';

/**
 * An active sandbox for a machine where the probe said it can start. The library is initialised on
 * the first `wrap`; a failure there is reported on every later wrap, and nothing runs unsandboxed.
 *
 * The library spends ~20 ms building each line (a ripgrep scan for protected names, glob walks). A line
 * is built once and run again for every command while the policy and the disk it was built from are the
 * same (fingerprint.ts); anything that could change the line (a new repository, a `.vscode`, a file
 * matching a deny glob, a changed rule) builds it again. The command itself travels in variables, so
 * every command still gets its own bubblewrap, namespaces, cwd, environment and process group.
 */
export function activeSandbox(o: {
  settings?: SandboxSettings;
  wish: SandboxWish;
  availability: Extract<Availability, { ok: true }>;
  /** The current policy; a new object when the rules changed. */
  policy: () => SandboxPolicy;
  yokeDir: string;
}): BashSandbox {
  const s = o.settings ?? {};
  const excluded = s.excludedCommands ?? [];
  const mayLeave = s.allowUnsandboxedCommands !== false;
  const net = s.network ?? {};
  const bwrap = o.availability.platform === "linux" ? o.availability.bwrap : undefined;
  const home = userHome();
  // yoke's own tools, found on the PATH yoke started with (never a settings env).
  const tools = { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin" };
  const nsenter = Bun.which("nsenter", tools) ?? undefined;
  const setpriv = Bun.which("setpriv", tools) ?? undefined;
  // YOKE_SANDBOX_KEEP=0: one bubblewrap per command, as before kept sandboxes.
  let keepWanted = process.env.YOKE_SANDBOX_KEEP !== "0";
  // Without an allowed host no proxy is needed: the command gets no network at all, and skips socat's start-up.
  const proxiedBy = (p: SandboxPolicy) => p.allowedDomains.length > 0 || net.httpProxyPort !== undefined || net.socksProxyPort !== undefined;
  let ready: Promise<Srt> | undefined;
  let srtLoaded: Srt | undefined;
  let failure: string | undefined;
  let helperDirs: string[] = [];
  // Commands wrapped and not yet released; lines the library built since the last time none ran.
  let running = 0;
  let libraryLines = 0;
  const ghosts = new Set<string>();
  let built: Built | undefined;
  // Lines replaced while commands ran in their kept sandboxes: stopped once none runs.
  const retired: Built[] = [];
  let builtCount = 0;
  let reused = 0;
  let configured: { policy: SandboxPolicy; denyGlobs: string } | undefined;

  const config = async (p: SandboxPolicy, extraDenyWrite: string[] = []): Promise<SrtConfig> => {
    const helpers = await helperPaths(o.yokeDir);
    helperDirs = [helpers.applySeccomp, helpers.javaAgent].filter((x): x is string => !!x).map((x) => dirname(x));
    return {
      network: {
        ...(proxiedBy(p) || !bwrap ? { allowedDomains: p.allowedDomains } : {}),
        deniedDomains: p.deniedDomains,
        ...(net.allowUnixSockets ? { allowUnixSockets: net.allowUnixSockets } : {}),
        ...(net.allowAllUnixSockets !== undefined ? { allowAllUnixSockets: net.allowAllUnixSockets } : {}),
        ...(net.allowLocalBinding !== undefined ? { allowLocalBinding: net.allowLocalBinding } : {}),
        ...(net.httpProxyPort !== undefined ? { httpProxyPort: net.httpProxyPort } : {}),
        ...(net.socksProxyPort !== undefined ? { socksProxyPort: net.socksProxyPort } : {}),
      },
      filesystem: {
        denyRead: p.denyRead,
        allowRead: p.allowRead,
        allowWrite: p.allowWrite,
        denyWrite: [...p.denyWrite, ...helperDirs, ...extraDenyWrite],
      },
      ...(s.enableWeakerNestedSandbox !== undefined ? { enableWeakerNestedSandbox: s.enableWeakerNestedSandbox } : {}),
      ...(s.allowNestedUserNamespaces !== undefined ? { allowNestedUserNamespaces: s.allowNestedUserNamespaces } : {}),
      ...(bwrap ? { bwrapPath: bwrap } : {}),
      ...(o.availability.platform === "linux" && o.availability.socat ? { socatPath: o.availability.socat } : {}),
      ...(o.availability.platform === "linux" && helpers.applySeccomp ? { seccomp: { applyPath: helpers.applySeccomp } } : {}),
      ...(helpers.javaAgent ? { javaAgentJarPath: helpers.javaAgent } : {}),
      ...(o.availability.platform === "linux" ? { ripgrep: { command: o.availability.rg } } : {}),
    } as SrtConfig;
  };

  let unguardBridges = () => {};
  const start = (): Promise<Srt> =>
    (ready ??= (async () => {
      const srt = await import("@anthropic-ai/sandbox-runtime");
      const p = o.policy();
      const c = await config(p);
      // Its socat bridges are its own children, in yoke's group: they must die with yoke too (issue 20.8).
      unguardBridges = (await guardLibraryChildren(() => srt.SandboxManager.initialize(c))).unguard;
      configured = { policy: p, denyGlobs: "" };
      srtLoaded = srt;
      return srt;
    })());

  /** Everything on disk the library reads to build a line under policy `p` (see fingerprint.ts). */
  const policyDisk = (p: SandboxPolicy): DiskSnapshot =>
    snapshot({
      scans: [{ root: process.cwd(), depth: SCAN_DEPTH, skip: ["node_modules"] }],
      walks: [...[...p.denyRead, ...p.allowRead].filter((x) => GLOB.test(x)).map(globBase), ...p.denyWriteGlobs.map((g) => g.root)],
      paths: [
        ...p.denyRead.filter((x) => !GLOB.test(x)),
        ...p.allowRead.filter((x) => !GLOB.test(x)),
        ...p.allowWrite,
        ...p.denyWrite,
        ...helperDirs,
        ...libraryPaths(home),
        ...p.allowWrite.flatMap((r) => [...PROTECTED_NAMES, ...PROTECTED_CLAUDE, ".claude", ".git"].map((n) => join(r, n))),
        join(process.cwd(), ".git"),
      ],
    });
  /** The same for a built line: its mount targets and their ghosts are part of what it was built from. */

  /** Builds a line with the library (the slow path) for `p` as the disk is now. */
  const build = async (srt: Srt, p: SandboxPolicy): Promise<Built | { error: string }> => {
    // Read before the library reads: a change made meanwhile shows as a difference next time, never as none.
    const disk = policyDisk(p);
    const extra = p.denyWriteGlobs.length ? expandDenyWriteGlobs(p.denyWriteGlobs) : [];
    const key = extra.join("\0");
    if (configured?.policy !== p || configured.denyGlobs !== key) {
      // Edit deny globs are pinned as the files that exist now; a new match is pinned from the next command on.
      srt.SandboxManager.updateConfig(await config(p, extra));
      configured = { policy: p, denyGlobs: key };
    }
    let line = await srt.SandboxManager.wrapWithSandbox(INNER, "/bin/sh");
    libraryLines++;
    builtCount++;
    const placeholders: string[] = [];
    if (bwrap) line = stripPlaceholders(line, p.allowWrite, placeholders);
    if (bwrap && !proxiedBy(p)) {
      if (!line.startsWith(`${bwrap} `)) return { error: `the sandbox library returned a command that does not start with ${bwrap}` };
      line = `${bwrap} --unshare-net ${line.slice(bwrap.length + 1)}`;
    }
    // A line the library passed through a file of arguments (a huge profile), or one not read back, is built per command.
    const targets = bwrap ? mountTargets(line, bwrap) : undefined;
    if (!targets) return { line, placeholders, targets: [], ghosts: new Set() };
    addPaths(disk, targets);
    const next: Built = { disk, line, placeholders, targets, ghosts: new Set(ghostsOf(targets)) };
    // bubblewrap makes them on the host (for the kept sandbox, or for each command until released): their
    // folders are compared by listing, without them.
    holdGhosts(disk, next.ghosts);
    if (keepWanted && !proxiedBy(p)) next.holder = await keep(line);
    return next;
  };

  const keep = (line: string) =>
    bwrap ? startHolder({ line, bwrap, nsenter, setpriv, root: process.geteuid?.() === 0, env: { PATH: tools.PATH } }) : Promise.resolve(undefined);

  const idle = () => {
    // Kept sandboxes of replaced lines go first: their mount points can go only once nothing mounts them.
    for (const r of retired.splice(0)) r.holder?.stop();
    // The current kept sandbox mounts on its targets for as long as it lives: none of them is removed.
    if (built?.holder) for (const t of built.targets) ghosts.delete(t);
    // The kept line holds one back: the library's cleanup would remove what the line mounts from
    // (its empty source folder) along with the mount points.
    const kept = built?.disk ? 1 : 0;
    for (; libraryLines > kept; libraryLines--) {
      try {
        srtLoaded?.SandboxManager.cleanupAfterCommand();
      } catch {}
    }
    removeGhosts(ghosts);
    ghosts.clear();
  };

  const sandbox: BashSandbox = {
    active: true,
    autoAllow: s.autoAllowBashIfSandboxed === true || (s.autoAllowBashIfSandboxed === undefined && s.enabled === true),
    get policy() {
      return o.policy();
    },
    availability: o.availability,
    covers: (input) => !(mayLeave && input.dangerouslyDisableSandbox === true) && !isExcluded(input.command, excluded),
    async wrap(inner, cwd, wo = {}) {
      if (failure) return { ok: false, error: failure };
      let srt: Srt;
      try {
        srt = await start();
      } catch (e) {
        failure = `the sandbox could not be set up: ${(e as Error).message.split("\n")[0]}`;
        return { ok: false, error: failure };
      }
      try {
        const p = o.policy();
        let b = built;
        if (!b?.disk || configured?.policy !== p || !unchanged(b.disk)) {
          const r = await build(srt, p);
          if ("error" in r) return { ok: false, error: r.error };
          if (built) {
            retired.push(built);
            for (const g of built.ghosts) ghosts.add(g);
          }
          b = built = r;
        } else {
          reused++;
          // A kept sandbox that ended (killed from outside) is started again for the same line.
          if (b.holder && !b.holder.alive()) b.holder = await keep(b.line);
        }
        running++;
        for (const g of b.ghosts) ghosts.add(g);
        if (b.holder) {
          const direct = b.holder.entry(inner, cwd, !!wo.announce, wo.env);
          return { ok: true, command: entryLine(direct), direct, placeholders: [...b.placeholders], kept: true };
        }
        const command = `__YOKE_SB_DIR=${quote(cwd)} __YOKE_SB_RUN=${quote(inner)}${wo.announce ? " __YOKE_SB_SAY=1" : ""} ${b.line}`;
        return { ok: true, command, placeholders: [...b.placeholders], kept: false };
      } catch (e) {
        return { ok: false, error: `the sandbox could not wrap the command: ${(e as Error).message.split("\n")[0]}` };
      }
    },
    notStarted(kept, stderr) {
      if (kept && keepWanted) {
        // Given up for the session: its holder stops once no command runs in it, and every later command
        // starts a bubblewrap of its own from the same line.
        keepWanted = false;
        if (built?.holder) {
          retired.push({ ...built, targets: [], ghosts: new Set() });
          built.holder = undefined;
        }
      }
      return startFailure({ kept, stderr });
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
      if (running <= 0) return removed;
      // Mount points go only once no sandboxed command runs: removing one under a running bubblewrap lifts its mount.
      if (--running === 0) idle();
      return removed;
    },
    stats: () => ({ built: builtCount, reused }),
    async shutdown() {
      for (const r of [...retired.splice(0), ...(built ? [built] : [])]) r.holder?.stop();
      if (!ready) return;
      try {
        await (await ready).SandboxManager.reset();
      } catch {}
      unguardBridges();
    },
  };
  return sandbox;
}

/** The static folder a glob starts from (`/a/b/**\/x` → `/a/b`). */
const globBase = (g: string): string => g.slice(0, g.search(GLOB)).replace(/\/[^/]*$/, "") || "/";

/** The mount targets that do not exist, and the folders bubblewrap makes on the way to them: ghosts it leaves on the host. */
function ghostsOf(targets: string[]): string[] {
  const out = new Set<string>();
  for (const t of targets) {
    for (let p = t; p !== "/" && p !== "." && !existsSync(p) && !isLink(p); p = dirname(p)) out.add(p);
  }
  return [...out];
}

/** As the library does: deepest first, and only what is still the empty file or folder bubblewrap made. */
function removeGhosts(paths: Iterable<string>): void {
  for (const p of [...paths].sort((a, b) => b.length - a.length)) {
    try {
      const st = lstatSync(p);
      if (st.isFile() && st.size === 0) unlinkSync(p);
      else if (st.isDirectory() && readdirSync(p).length === 0) rmdirSync(p);
    } catch {}
  }
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
