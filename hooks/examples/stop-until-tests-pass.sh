#!/usr/bin/env bash
# Stop hook: keeps the agent working until the project's tests pass.
# Settings:  {"env":{"YOKE_TEST_COMMAND":"bun test"},
#             "hooks":{"Stop":[{"hooks":[{"type":"command","timeout":600,
#             "command":"${CLAUDE_PROJECT_DIR}/hooks/examples/stop-until-tests-pass.sh"}]}]}}
# Runs $YOKE_TEST_COMMAND (default `bun test`) in the project. On failure it answers
# {"decision":"block","reason":...} with the tail of the output, so the loop goes on
# (contracts §1.6). When stop_hook_active is true (we already sent the agent back once this
# turn) it lets the agent stop, to avoid an endless loop.
set -u
payload=$(cat)
if printf '%s' "$payload" | grep -qE '"stop_hook_active": *true'; then
  exit 0
fi

cd "${CLAUDE_PROJECT_DIR:-$PWD}" || exit 0
test_cmd=${YOKE_TEST_COMMAND:-bun test}
if output=$(bash -c "$test_cmd" 2>&1); then
  exit 0
fi

json_escape() {
  local s
  s=$(printf '%s' "$1" | sed -E $'s/\x1b\\[[0-9;?]*[A-Za-z]//g' | tr -d '\000-\010\013\014\016-\037')
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\t'/\\t}
  s=${s//$'\r'/}
  s=${s//$'\n'/\\n}
  printf '%s' "$s"
}

tail_out=$(printf '%s\n' "$output" | tail -n 40)
reason="The tests are failing (\`$test_cmd\`). Fix them before you finish. Last lines of the output:
$tail_out"
printf '{"decision":"block","reason":"%s"}\n' "$(json_escape "$reason")"
exit 0
