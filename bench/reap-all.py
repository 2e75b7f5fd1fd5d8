#!/usr/bin/env python3
"""bench/reap-all.py OUT CMD...: runs CMD and waits for every process it leaves behind, then writes to OUT the
peak RSS (KiB) of the largest and the CPU time (user + system, ms) of all of them.

Why: a program may leave children to end after its own exit (yoke leaves its stdio MCP servers to its watchdog, which
ends them after yoke is gone). Those orphans go to init, and their CPU is in nobody's wait4 usage: a bench that reads
the measured process's usage alone would leave out work the run caused. As the child subreaper
(prctl PR_SET_CHILD_SUBREAPER) this process gets every orphan of the tree and reaps it, so RUSAGE_CHILDREN holds the
whole tree. Its own start costs nothing measured: RUSAGE_CHILDREN leaves out the caller. Exits with CMD's status.
The wall time of a run under it is not used (bench/measure.ts times runs spawned directly)."""
import ctypes
import os
import resource
import sys

PR_SET_CHILD_SUBREAPER = 36


def main() -> int:
    out, cmd = sys.argv[1], sys.argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print(f"reap-all: prctl(PR_SET_CHILD_SUBREAPER) failed: errno {ctypes.get_errno()}", file=sys.stderr)
        return 125
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(cmd[0], cmd)
        except OSError as e:
            print(f"reap-all: cannot run {cmd[0]}: {e}", file=sys.stderr)
            os._exit(127)
    code = 0
    while True:
        try:
            p, status = os.wait()
        except ChildProcessError:
            break
        if p == pid:
            c = os.waitstatus_to_exitcode(status)
            code = c if c >= 0 else 128 - c
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out, "w") as f:
        f.write(f"{ru.ru_maxrss} {(ru.ru_utime + ru.ru_stime) * 1000:.3f}\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
