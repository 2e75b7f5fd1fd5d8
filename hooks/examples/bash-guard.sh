#!/usr/bin/env bash
# PreToolUse hook for Bash: refuses a few commands that destroy data or history.
# Settings:  {"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command",
#             "command":"${CLAUDE_PROJECT_DIR}/hooks/examples/bash-guard.sh"}]}]}}
# Protocol (contracts §1.5): exit 2 blocks the call and stderr goes to the model as the reason.
# Needs only bash, grep and sed (no jq).
set -u
payload=$(cat)

# tool_input.command from the compact stdin JSON: the first "command":"..." string, unescaped.
raw=$(printf '%s' "$payload" | grep -oE '"command":"([^"\\]|\\.)*"' | head -n 1 | sed -E 's/^"command":"//; s/"$//')
[ -z "$raw" ] && exit 0
cmd=$(printf '%b' "$(printf '%s' "$raw" | sed -E 's/\\"/"/g; s/\\\//\//g')")

block() {
  echo "bash-guard: $1 Command: $cmd" >&2
  echo "Do not run this. If it is really needed, explain why and ask the user to run it themselves." >&2
  exit 2
}

# Normalize whitespace so "rm  -rf   /" matches too.
c=$(printf '%s' "$cmd" | tr -s '[:space:]' ' ')

# rm with both -r and -f on /, /*, ~ or $HOME
if printf '%s' "$c" | grep -qE '(^|[;&|( ])rm( +-[a-zA-Z]+)*( +--[a-z-]+)* +(-[a-zA-Z]*[rR][a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*[rR]|-r +-f|-f +-r|--recursive +--force|--force +--recursive)( +-[a-zA-Z]+)* +(/|/\*|~|~/|\$HOME|\$\{HOME\})( |;|&|\||$)'; then
  block "recursive forced delete of the root or home directory."
fi
# git push --force / -f / +refspec (but --force-with-lease is allowed)
if printf '%s' "$c" | grep -qE '(^|[;&|( ])git( +-[^ ]+)* +push( +[^ ;&|]+)* +(--force( |$|;|&)|-f( |$|;|&)|-[a-zA-Z]*f[a-zA-Z]*( |$))'; then
  block "force push rewrites shared history; use --force-with-lease if you must."
fi
if printf '%s' "$c" | grep -qE '(^|[;&|( ])git( +-[^ ]+)* +push( +[^ ;&|]+)* +\+[^ ]+'; then
  block "a +refspec push is a force push."
fi
# git clean -f deletes untracked files for good
if printf '%s' "$c" | grep -qE '(^|[;&|( ])git +clean( +-[a-zA-Z]*)* +-[a-zA-Z]*f'; then
  block "git clean -f deletes untracked files for good."
fi
# filesystem and device wipes, fork bombs
if printf '%s' "$c" | grep -qE '(^|[;&|( ])(mkfs(\.[a-z0-9]+)?|wipefs) |dd .*of=/dev/(sd|nvme|hd|vd|disk)|> */dev/(sd|nvme|hd|vd)|:\(\) *\{ *:\|:& *\} *; *:'; then
  block "this overwrites a disk or exhausts the machine."
fi
if printf '%s' "$c" | grep -qE '(^|[;&|( ])chmod +(-[a-zA-Z]*R[a-zA-Z]* +)?(0?777|a\+rwx) +/( |$)'; then
  block "making the whole filesystem world-writable is never intended."
fi
exit 0
