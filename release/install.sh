#!/bin/sh
# yoke installer: picks this machine's build, checks it against the release's SHA256SUMS, installs it.
#
#   curl -fsSL <release URL>/install.sh | sh
#   curl -fsSL <release URL>/install.sh | sh -s -- --prefix /usr/local
#
# Options: --prefix DIR   install as DIR/bin/yoke (default: ~/.local, so ~/.local/bin/yoke)
#          --bin-dir DIR  install as DIR/yoke
#          --target NAME  a build by name (linux-x64, linux-x64-musl, linux-arm64, darwin-arm64, ...)
#          --url BASE     where the release's files are: an http(s):// or file:// URL, or a folder
# The same as environment: YOKE_INSTALL_PREFIX, YOKE_INSTALL_BIN_DIR, YOKE_INSTALL_TARGET, YOKE_RELEASE_URL.
set -eu

# `bun run release --base-url` writes the release's own URL here.
YOKE_RELEASE_URL_DEFAULT='https://github.com/yoke-agent/yoke/releases/latest/download'

say() { printf 'yoke install: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

base="${YOKE_RELEASE_URL:-$YOKE_RELEASE_URL_DEFAULT}"
prefix="${YOKE_INSTALL_PREFIX:-${HOME:-}/.local}"
bindir="${YOKE_INSTALL_BIN_DIR:-}"
target="${YOKE_INSTALL_TARGET:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || die "--prefix needs a folder"; prefix="$2"; shift 2 ;;
    --prefix=*) prefix="${1#*=}"; shift ;;
    --bin-dir) [ $# -ge 2 ] || die "--bin-dir needs a folder"; bindir="$2"; shift 2 ;;
    --bin-dir=*) bindir="${1#*=}"; shift ;;
    --target) [ $# -ge 2 ] || die "--target needs a name"; target="$2"; shift 2 ;;
    --target=*) target="${1#*=}"; shift ;;
    --url) [ $# -ge 2 ] || die "--url needs a URL or folder"; base="$2"; shift 2 ;;
    --url=*) base="${1#*=}"; shift ;;
    -h|--help) sed -n '2,13p' "$0" 2>/dev/null || true; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done
[ -n "$bindir" ] || bindir="$prefix/bin"
case "$bindir" in /*) ;; *) die "the install folder must be an absolute path (got '$bindir'; is HOME set?)" ;; esac
base="${base%/}"

is_musl() {
  # Alpine and other musl systems: ldd says so, or the musl loader is there.
  if command -v ldd >/dev/null 2>&1 && ldd --version 2>&1 | grep -qi musl; then return 0; fi
  for f in /lib/ld-musl-*; do [ -e "$f" ] && return 0; done
  return 1
}

has_avx2() {
  case "$1" in
    linux) grep -qw avx2 "${YOKE_INSTALL_CPUINFO:-/proc/cpuinfo}" 2>/dev/null ;;
    darwin) sysctl -n machdep.cpu.leaf7_features 2>/dev/null | grep -q AVX2 ;;
    *) return 1 ;;
  esac
}

if [ -z "$target" ]; then
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) die "no build for $(uname -s) here; download yoke-windows-x64.tar.gz from the release for Windows" ;;
  esac
  case "$(uname -m)" in
    x86_64|amd64) arch=x64 ;;
    aarch64|arm64) arch=arm64 ;;
    *) die "no build for the $(uname -m) CPU (x64 and arm64 only)" ;;
  esac
  libc=""
  if [ "$os" = linux ] && is_musl; then libc="-musl"; fi
  cpu=""
  # Bun's default x64 build needs AVX2; CPUs without it get the baseline build.
  if [ "$arch" = x64 ] && ! has_avx2 "$os"; then cpu="-baseline"; fi
  target="$os-$arch$libc$cpu"
fi
archive="yoke-$target.tar.gz"

fetch() { # fetch NAME DEST
  case "$base" in
    http://*|https://*|file://*)
      if command -v curl >/dev/null 2>&1; then curl -fsSL --retry 3 -o "$2" "$base/$1"
      elif command -v wget >/dev/null 2>&1; then wget -q -O "$2" "$base/$1"
      else die "needs curl or wget to download $base/$1"
      fi ;;
    *) [ -f "$base/$1" ] && cp "$base/$1" "$2" ;;
  esac
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  else die "needs sha256sum or shasum to check the download"
  fi
}

tmp="$(mktemp -d "${TMPDIR:-/tmp}/yoke-install.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT INT TERM HUP

fetch SHA256SUMS "$tmp/SHA256SUMS" || die "could not download $base/SHA256SUMS"
expected="$(awk -v n="$archive" '{ f = $2; sub(/^\*/, "", f); if (f == n) print $1 }' "$tmp/SHA256SUMS")"
[ -n "$expected" ] || die "this release has no build for $target ($archive is not in $base/SHA256SUMS)"
fetch "$archive" "$tmp/$archive" || die "could not download $base/$archive"
actual="$(sha256 "$tmp/$archive")"
[ "$actual" = "$expected" ] || die "checksum mismatch for $archive: expected $expected, got $actual; nothing was installed"

mkdir -p "$tmp/x"
tar -xzf "$tmp/$archive" -C "$tmp/x" || die "$archive is not a readable archive; nothing was installed"
[ -f "$tmp/x/yoke" ] || die "$archive holds no yoke binary; nothing was installed"
chmod 755 "$tmp/x/yoke"
version="$("$tmp/x/yoke" --version 2>&1)" || die "the $target build does not run on this machine ($version); nothing was installed (try --target)"

mkdir -p "$bindir" || die "cannot create $bindir"
# Same folder, then rename: a running yoke is never overwritten half-way.
cp "$tmp/x/yoke" "$bindir/.yoke.new.$$" || die "cannot write to $bindir"
mv -f "$bindir/.yoke.new.$$" "$bindir/yoke"
say "installed $version ($target) as $bindir/yoke"
case ":${PATH:-}:" in
  *":$bindir:"*) ;;
  *) say "$bindir is not on your PATH; add it: export PATH=\"$bindir:\$PATH\"" ;;
esac
