#!/bin/sh
# Test dependencies installed from Debian: ripgrep drives Grep when present; bubblewrap and socat are
# what the Bash sandbox needs on Linux (issue 16), so CI tests both the sandboxed and the plain path;
# tmux gives the interactive session's end-to-end tests a real terminal (issue 12); the container image's root
# (deploy/image/packages.txt: git, busybox, tini, CA certificates, gettext-base, and socat's libraries, which come with
# it, beside the above) is assembled from this machine's own packages by test/helpers/image-view.ts (issue 18).
set -e
missing=""
command -v rg >/dev/null || missing="$missing ripgrep"
command -v bwrap >/dev/null || missing="$missing bubblewrap"
command -v socat >/dev/null || missing="$missing socat"
command -v tmux >/dev/null || missing="$missing tmux"
# openssl makes the throwaway certificate of the https MCP server in test/e2e/mcp-managed-commands.test.ts.
command -v openssl >/dev/null || missing="$missing openssl"
command -v git >/dev/null || missing="$missing git"
command -v busybox >/dev/null || missing="$missing busybox"
command -v tini >/dev/null || missing="$missing tini"
command -v envsubst >/dev/null || missing="$missing gettext-base"
[ -e /etc/ssl/certs/ca-certificates.crt ] || missing="$missing ca-certificates"
# The image's socat is built from Debian's source without OpenSSL (deploy/image/socat.sh, with the tools and versions
# of deploy/image/build-packages.txt); the image tests lay that build over the root they assemble.
missing="$missing $("$(dirname "$0")/../deploy/image/socat.sh" missing-tools | tr '\n' ' ')"
if [ -n "$(echo $missing)" ]; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends --allow-downgrades $missing
fi
"$(dirname "$0")/../deploy/image/socat.sh" ensure >/dev/null
