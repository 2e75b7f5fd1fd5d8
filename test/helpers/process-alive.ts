import { readdirSync, readFileSync } from "node:fs";

/** True while a live (non-zombie) process with this pid exists. Zombies count as dead: PID 1 in containers may reap late. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return process.platform !== "linux";
  }
}

export type ProcStat = { pid: number; state: string; ppid: number; pgrp: number; cmdline: string };

/** Every live (not zombie) process, from /proc (Linux). */
export function processes(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const st = readFileSync(`/proc/${e}/stat`, "utf8");
      const rest = st.slice(st.lastIndexOf(")") + 2).split(" ");
      if (rest[0] === "Z" || rest[0] === "X") continue;
      out.push({ pid: Number(e), state: rest[0]!, ppid: Number(rest[1]), pgrp: Number(rest[2]), cmdline: readFileSync(`/proc/${e}/cmdline`, "utf8") });
    } catch {}
  }
  return out;
}

/** Live (not zombie) processes whose process group is `pgid` (Linux: read from /proc). */
export function groupMembers(pgid: number): number[] {
  return processes().filter((p) => p.pgrp === pgid).map((p) => p.pid);
}
