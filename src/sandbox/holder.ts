/**
 * A bubblewrap sandbox kept alive for a built line, so that commands join its namespaces instead of
 * building them again (~40 mounts a start). Each command still starts as its own host process (its own
 * process group, pipes, cwd and environment) and runs the line's command inside: `nsenter` joins the
 * kept sandbox's user, mount, network and pid namespaces, `setpriv` drops the same capabilities
 * bubblewrap drops, and the library's seccomp helper then makes the command's own pid and mount
 * namespaces and applies its filter, exactly as under a bubblewrap of its own: when the command's shell
 * ends, everything it started ends with it.
 *
 * Linux only, and only for lines without the network proxy (whose relays the line starts per command).
 */
import type { ChildProcess } from "node:child_process";
import { runProcess, spawnProcess } from "../util/subprocess.ts";
import { readFileSync, readlinkSync } from "node:fs";
import { shellWords } from "./bwrap-line.ts";

export type Holder = {
  /**
   * How to run `inner` (a shell command line) in `cwd` inside the kept sandbox: a program to start and the
   * changes to its environment (`entryLine` makes it a line for `/bin/sh -c`). `announce`: it writes `started`
   * on fd 3 (and closes it) once inside, before the command starts. `env`: the environment it will start
   * with, when known (a shell's own start-up, `BASH_ENV`, then rules out starting that shell directly).
   */
  entry(inner: string, cwd: string, announce: boolean, env?: Record<string, string | undefined>): Entry;
  /** False once the kept sandbox has ended (then the line is built again). */
  alive(): boolean;
  /** Ends the kept sandbox. Call only when no command runs in it: they would lose their mounts. */
  stop(): void;
};

/** A program to start, and what to set (a string) or unset (undefined) in its environment first, in order. */
export type Entry = { argv: string[]; env: Array<[string, string | undefined]> };

/** An entry as a command line for `/bin/sh -c`. */
export const entryLine = (e: Entry): string =>
  [...e.env.map(([k, v]) => (v === undefined ? `unset ${k}` : `export ${k}=${quote(v)}`)), `exec ${e.argv.map(quote).join(" ")}`].join("; ");

/**
 * The library's command, `[NAME=value ...] <helper> <shell> -c <script>` (its seccomp helper and the
 * variables it reads), read back; undefined for any other shape.
 */
export function helperCall(command: string): { env: Array<[string, string]>; helper: string; shell: string } | undefined {
  const words = shellWords(command);
  if (!words) return undefined;
  const env: Array<[string, string]> = [];
  let i = 0;
  for (let m: RegExpExecArray | null; (m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(words[i] ?? "")); i++) env.push([m[1]!, m[2]!]);
  const [helper, shell, c] = words.slice(i);
  if (words.length !== i + 4 || !helper?.startsWith("/") || !shell?.startsWith("/") || c !== "-c") return undefined;
  return { env, helper, shell };
}

/** Variables that make a shell run something of its own before its `-c` script (or print what it runs). */
const SHELL_START = ["BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4"];

/**
 * `inner` as `<shell> -c <script> [args]` (bash, sh or dash, by its path), when that shell can be the first
 * program inside: nothing in `env` (after `ops`) makes it run anything before its script. Else undefined.
 */
export function ownShell(inner: string, env: Record<string, string | undefined> | undefined, ops: Entry["env"]): string[] | undefined {
  const words = shellWords(inner);
  if (!env || !words || words.length < 3 || words[1] !== "-c" || !/^\/(.*\/)?(bash|sh|dash)$/.test(words[0]!)) return undefined;
  const final = { ...env };
  for (const [k, v] of ops) final[k] = v;
  return SHELL_START.some((k) => final[k] !== undefined) ? undefined : words;
}

/**
 * What runs first in that shell, on the script's first line (its line numbers stay): says it started, and goes
 * to the command's folder (a path from the root).
 */
const PRELUDE = (cwd: string, announce: boolean) => `${announce ? "printf started >&3; exec 3>&-; " : ""}cd ${quote(cwd)} || exit; `;

/** The first shell inside: says it started, goes to the command's folder, and becomes the command (its words follow, a program's path first). */
const START = (announce: boolean) => `${announce ? "printf started >&3; exec 3>&-; " : ""}cd "$1" && shift && exec "$@"`;
/** The same for a command line that is not plain words: the shell runs it. */
const START_LINE = (announce: boolean) => `${announce ? "printf started >&3; exec 3>&-; " : ""}cd "$1" && eval "shift 2\n$2"`;

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether a `/proc/PID/status` text shows SIGKILL pending (bit 9 of SigPnd or ShdPnd): the process is as good as gone. Pure. */
export function killPending(status: string): boolean {
  for (const m of status.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-fA-F]+)\s*$/gm)) if ((BigInt(`0x${m[1]}`) >> 8n) & 1n) return true;
  return false;
}

/**
 * Starts a kept sandbox for `line` (a bubblewrap line built by the library, as runtime.ts keeps it).
 * Resolves undefined when it cannot (a line of another shape, a tool missing, bubblewrap refusing):
 * the caller then runs the line itself, one bubblewrap per command.
 */
export async function startHolder(o: { line: string; bwrap: string; nsenter?: string; setpriv?: string; root: boolean; env: Record<string, string | undefined> }): Promise<Holder | undefined> {
  const words = shellWords(o.line);
  if (!words || words[0] !== o.bwrap || !o.nsenter || (o.root && !o.setpriv)) return undefined;
  const dd = words.indexOf("--");
  if (dd < 0) return undefined;
  const opts = words.slice(1, dd);
  const cmd = words.slice(dd + 1);
  if (cmd.length !== 3 || cmd[0] !== "/bin/sh" || cmd[1] !== "-c") return undefined;
  // What bubblewrap does to the environment, in its order, done by the shell that starts nsenter.
  const envOps: Entry["env"] = [];
  for (let i = 0; i < opts.length; i++) {
    const [op, name, value] = [opts[i], opts[i + 1] ?? "", opts[i + 2] ?? ""];
    if (op !== "--setenv" && op !== "--unsetenv") continue;
    if (!NAME.test(name)) return undefined;
    envOps.push([name, op === "--setenv" ? value : undefined]);
    i += op === "--setenv" ? 2 : 1;
  }
  let child: ChildProcess;
  try {
    child = spawnProcess([o.bwrap, "--info-fd", "3", ...opts, ...cmd], {
      // The kept sandbox's own command says it runs (bubblewrap reports the pid before its mounts are
      // made), then waits on its stdin, which ends with yoke.
      env: { ...o.env, __YOKE_SB_DIR: "/", __YOKE_SB_RUN: "echo ready; exec cat >/dev/null" } as Record<string, string>,
      stdin: "pipe",
      stderr: "ignore",
      extraPipes: 1,
    });
  } catch {
    return undefined;
  }
  const info = child.stdio[3];
  let mntns = "";
  const pid = await new Promise<number | undefined>((resolve) => {
    let text = "";
    let ready = "";
    let found: number | undefined;
    let settled = false;
    const done = (v: number | undefined) => {
      if (settled) return;
      settled = true;
      info?.removeAllListeners("data");
      child.stdout?.removeAllListeners("data");
      resolve(v);
    };
    const check = () => {
      if (found && ready.includes("ready\n")) done(found);
    };
    info?.on("data", (d: Buffer) => {
      text += d.toString();
      const m = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (m) found = Number(m[1]);
      mntns = /"mnt-namespace"\s*:\s*(\d+)/.exec(text)?.[1] ?? mntns;
      check();
    });
    child.stdout?.on("data", (d: Buffer) => {
      ready += d.toString();
      check();
    });
    child.once("error", () => done(undefined));
    child.once("exit", () => done(undefined));
    // A sandbox that does not come up within a few seconds is given up: the caller runs its line per command.
    setTimeout(() => done(undefined), 10_000).unref?.();
  });
  for (const s of [info, child.stdout] as Array<{ destroy?: () => void } | null>) s?.destroy?.();
  child.unref();
  (child.stdin as { unref?: () => void } | null)?.unref?.();
  if (!pid || !mntns || child.exitCode !== null) {
    child.kill("SIGKILL");
    return undefined;
  }
  // Not -F: nsenter forks, so the command is inside the kept pid namespace, where its /proc is.
  const enter = [o.nsenter, "-t", String(pid), "-U", "-m", "-n", "-p", "-r", "-w", "--preserve-credentials", "--"];
  // Root keeps capabilities across exec: drop the bounding set to what bubblewrap leaves (--cap-drop ALL --cap-add CAP_SETFCAP).
  const drop = o.root ? [o.setpriv!, "--bounding-set=-all,+setfcap", "--inh-caps=-all", "--"] : [];
  // The library's own shell in front of its helper is left out: the helper starts straight from setpriv, with
  // the variables the shell would have set, and its shell is ours (START), which execs the command's words.
  // A command of another shape runs as the library wrote it, taking what to run from variables (INNER, runtime.ts).
  const direct = helperCall(cmd[2]!);
  const entry = (inner: string, cwd: string, announce: boolean, env?: Record<string, string | undefined>): Entry => {
    if (!direct)
      return {
        argv: [...enter, ...drop, ...cmd],
        env: [["__YOKE_SB_DIR", cwd], ["__YOKE_SB_RUN", inner], ["__YOKE_SB_SAY", announce ? "1" : undefined], ...envOps],
      };
    const ops = [...envOps, ...direct.env];
    // The command's own shell (the Bash tool's `bash -c`) as the first program inside, when nothing runs before its
    // script: what START does goes in front of the script. Else START, which execs the command's words.
    const own = cwd.startsWith("/") ? ownShell(inner, env, ops) : undefined;
    const words = own ? undefined : shellWords(inner);
    const run = own
      ? [own[0]!, "-c", PRELUDE(cwd, announce) + own[2]!, ...own.slice(3)]
      : words?.[0]?.startsWith("/")
        ? [direct.shell, "-c", START(announce), "sh", cwd, ...words]
        : [direct.shell, "-c", START_LINE(announce), "sh", cwd, inner];
    return { argv: [...enter, ...drop, direct.helper, ...run], env: ops };
  };
  let ended = false;
  child.once("exit", () => (ended = true));
  // Asked of the kernel, not of the exit event (which may come later): the sandbox's first process is there
  // and still in the mount namespace bubblewrap reported (a pid used again by another process is not).
  // Nor one with a SIGKILL on its way (bubblewrap's --die-with-parent sends it when bubblewrap itself is killed): its
  // namespaces are still there until it runs, and a command that joins them meanwhile dies with it, saying nothing.
  const inside = () => {
    try {
      return readlinkSync(`/proc/${pid}/ns/mnt`) === `mnt:[${mntns}]` && !killPending(readFileSync(`/proc/${pid}/status`, "utf8"));
    } catch {
      return false;
    }
  };
  const stop = () => {
    ended = true;
    try {
      child.stdin?.end();
      child.kill("SIGKILL");
    } catch {}
  };
  // One command through it before any of the session's: where joining is refused (an unprivileged
  // bubblewrap owns its namespaces through a user namespace nsenter cannot reach), commands get their own.
  const probe = await runProcess(["/bin/sh", "-c", entryLine(entry("echo joined", "/", false))], {
    env: o.env as Record<string, string>,
    stderr: "ignore",
    timeoutMs: 10_000,
  });
  const said = probe.stdout;
  if (said !== "joined\n") {
    stop();
    return undefined;
  }
  return {
    entry,
    alive: () => !ended && inside(),
    stop,
  };
}
