#!/bin/sh
# Test dependencies installed from Debian: ripgrep drives Grep when present; bubblewrap and socat are
# what the Bash sandbox needs on Linux (issue 16), so CI tests both the sandboxed and the plain path;
# tmux gives the interactive session's end-to-end tests a real terminal (issue 12).
set -e
missing=""
command -v rg >/dev/null || missing="$missing ripgrep"
command -v bwrap >/dev/null || missing="$missing bubblewrap"
command -v socat >/dev/null || missing="$missing socat"
command -v tmux >/dev/null || missing="$missing tmux"
if [ -n "$missing" ]; then
  apt-get update -qq && apt-get install -y -qq $missing
fi
