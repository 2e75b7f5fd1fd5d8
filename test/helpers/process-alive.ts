import { readFileSync } from "node:fs";

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
