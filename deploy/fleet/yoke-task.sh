#!/bin/sh
# One task of a fleet: the Kubernetes Indexed Job runs this once per JOB_COMPLETION_INDEX (the image has it as
# /usr/local/bin/yoke-task). The task is the file task-<index> in YOKE_TASKS_DIR (a ConfigMap); its result goes
# to YOKE_RESULTS_DIR/task-<index>/result.json, written by rename only when the run succeeds, so a result file
# exists exactly when the task ran to its end (a failed attempt's output is kept as failed-*.json). The session id is derived from the fleet name, the index and the
# task's text: a retry after a killed pod resumes that session instead of starting over, and a task whose
# result is already there is not run again.
#
# Environment: JOB_COMPLETION_INDEX (set by Kubernetes), YOKE_TASKS_DIR (default /tasks), YOKE_RESULTS_DIR
# (default /results), YOKE_WORKSPACES_DIR (each task works in <dir>/task-<index>), YOKE_FLEET (a name for this batch, default "yoke"), YOKE_TASK_ARGS (extra yoke flags,
# one per line), plus yoke's own configuration (ANTHROPIC_API_KEY, YOKE_SETTINGS ...).
# Exit: 0 done (or done before), 1 the run failed (Kubernetes retries it), 2 bad setup (no retry helps).
set -eu

i="${JOB_COMPLETION_INDEX:-}"
case "$i" in ''|*[!0-9]*) echo "yoke-task: JOB_COMPLETION_INDEX must be a number (got '$i')" >&2; exit 2 ;; esac
tasks="${YOKE_TASKS_DIR:-/tasks}"
results="${YOKE_RESULTS_DIR:-/results}"
yoke="${YOKE_BIN:-yoke}"
task="$tasks/task-$i"
[ -f "$task" ] || { echo "yoke-task: no task file $task" >&2; exit 2; }
out="$results/task-$i"
mkdir -p "$out" || { echo "yoke-task: cannot create $out" >&2; exit 2; }

# Each task in its own workspace folder when YOKE_WORKSPACES_DIR is set (on the volume, so a retry finds the
# files the killed attempt left; sessions are kept per folder, so it also finds the session).
if [ -n "${YOKE_WORKSPACES_DIR:-}" ]; then
  mkdir -p "$YOKE_WORKSPACES_DIR/task-$i" && cd "$YOKE_WORKSPACES_DIR/task-$i" || { echo "yoke-task: cannot use workspace $YOKE_WORKSPACES_DIR/task-$i" >&2; exit 2; }
fi

if [ -f "$out/result.json" ]; then
  echo "yoke-task: task $i already has its result ($out/result.json); not run again" >&2
  exit 0
fi

# A UUID from sha256(fleet, index, task text): the same task always gets the same session.
h="$({ printf '%s\n%s\n' "${YOKE_FLEET:-yoke}" "$i"; cat "$task"; } | sha256sum | cut -c1-32)"
sid="$(printf '%s' "$h" | sed -E 's/^(.{8})(.{4}).(.{3}).(.{3})(.{12})$/\1-\2-4\3-8\4-\5/')"

# Extra flags, one per line (so a flag's value may hold spaces).
set --
if [ -n "${YOKE_TASK_ARGS:-}" ]; then
  while IFS= read -r a; do [ -n "$a" ] && set -- "$@" "$a"; done <<ARGS
$YOKE_TASK_ARGS
ARGS
fi

if "$yoke" sessions show "$sid" --json >/dev/null 2>&1; then
  echo "yoke-task: task $i resumes session $sid (an earlier attempt was cut off)" >&2
  set -- --resume "$sid" -p "You were interrupted. Continue the task from where you left off and finish it." "$@"
else
  set -- --session-id "$sid" -p "$(cat "$task")" "$@"
fi

rc=0
"$yoke" "$@" --output-format json >"$out/result.json.part" || rc=$?
if [ "$rc" -eq 0 ] && [ -s "$out/result.json.part" ]; then
  mv -f "$out/result.json.part" "$out/result.json"
  exit 0
fi
# A failed attempt keeps its output for the post-mortem; the retry runs the task again.
if [ -s "$out/result.json.part" ]; then mv -f "$out/result.json.part" "$out/failed-$(date +%s)-$$.json"; else rm -f "$out/result.json.part"; fi
echo "yoke-task: task $i (session $sid) ended with exit $rc" >&2
[ "$rc" -eq 0 ] && exit 1
exit "$rc"
