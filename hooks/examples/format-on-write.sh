#!/usr/bin/env bash
# PostToolUse hook for Write|Edit: formats the written file with the project's formatter, if any.
# Settings:  {"hooks":{"PostToolUse":[{"matcher":"Write|Edit","hooks":[{"type":"command",
#             "command":"${CLAUDE_PROJECT_DIR}/hooks/examples/format-on-write.sh"}]}]}}
# Uses prettier (project node_modules/.bin first), gofmt, black or rustfmt when installed;
# does nothing otherwise. Formatter failures are reported on stderr but never block (exit 0).
set -u
payload=$(cat)
file=$(printf '%s' "$payload" | grep -oE '"file_path":"([^"\\]|\\.)*"' | head -n 1 | sed -E 's/^"file_path":"//; s/"$//; s/\\"/"/g; s/\\\\/\\/g; s/\\\//\//g')
[ -n "$file" ] && [ -f "$file" ] || exit 0

project=${CLAUDE_PROJECT_DIR:-$PWD}
find_tool() {
  if [ -x "$project/node_modules/.bin/$1" ]; then printf '%s' "$project/node_modules/.bin/$1"; return 0; fi
  command -v "$1" 2>/dev/null
}

run() {
  if ! out=$("$@" 2>&1); then
    echo "format-on-write: $1 failed on $file: $out" >&2
  fi
  exit 0
}

case "$file" in
  *.ts|*.tsx|*.js|*.jsx|*.mjs|*.cjs|*.json|*.css|*.scss|*.md|*.yaml|*.yml|*.html|*.vue|*.svelte)
    if p=$(find_tool prettier); then run "$p" --write --log-level warn "$file"; fi ;;
  *.go)
    if g=$(find_tool gofmt); then run "$g" -w "$file"; fi ;;
  *.py)
    if b=$(find_tool black); then run "$b" -q "$file"; fi
    if r=$(find_tool ruff); then run "$r" format -q "$file"; fi ;;
  *.rs)
    if r=$(find_tool rustfmt); then run "$r" "$file"; fi ;;
esac
exit 0
