#!/bin/sh
# socat for the image, built from Debian's pinned source without OpenSSL and TCP wrappers: the Bash sandbox's library
# uses only its TCP and Unix-socket addresses (the network proxy's bridges), and Debian's socat links OpenSSL, libwrap
# and through it NIS, Sun RPC and Kerberos (2.9 MiB of the image compressed, against 0.12 for this build).
#
#   socat.sh fetch DIR        Debian's source of socat $version into DIR, checked against the SHA-256 sums below
#                             (apt-get source, with deb-src copies of this machine's Debian sources in a private apt state)
#   socat.sh build DIR OUT    unpack DIR's source (Debian's patches applied), build socat with Debian's hardening flags,
#                             install it as OUT/usr/bin/socat
#   socat.sh cached           the folder `ensure` builds into (under ~/.cache/yoke/image), named by the hash of this
#                             file and build-packages.txt
#   socat.sh ensure           fetch and build into that folder unless it is there; prints it
#   socat.sh build-packages   the pinned build tools, for apt-get install
#   socat.sh missing-tools    those of them not installed here at their pinned version
#
# The Dockerfile's socat stage runs fetch and build; .ci/install-deps.sh and bench/image.ts run ensure, and
# test/helpers/image-view.ts lays the cached build over the root it assembles (assemble.sh's third argument), so the
# tests and the bench run the bytes the image holds: same source, same Debian 12 compiler and flags, and the build
# date taken from Debian's changelog (SOURCE_DATE_EPOCH). It builds with the versions of deploy/image/build-packages.txt
# (gcc, binutils, libc6-dev, make, dpkg-dev) and refuses others.
set -eu
export LC_ALL=C

version=1.7.4.4-2
# The upstream tarball and Debian's packaging of that version (apt-get source checks them against the signed Sources
# index too; these pins keep a changed archive from changing the image).
orig_sha256=0f8f4b9d5c60b8c53d17b60d79ababc4a0f51b3bb6d2bd3ae8a6a4b9d68f195e
debian_sha256=65464f1e2cfe556f0899a8e536bb34d34f8a69b76eb6dd89eef4255b68c6c147
dsc_sha256=d69a6c1c1f3e36959b3f43b0383c537a924e5f0dcae6f803621aef9491a71e5a
upstream=${version%-*}

die() { echo "socat.sh: $*" >&2; exit 1; }

fetch() {
  dir=$1
  mkdir -p "$dir"
  apt=$(mktemp -d)
  trap 'rm -rf "$apt"' EXIT
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts"
  : >"$apt/sources.list"
  # This machine's Debian sources, as deb-src: one-line lists and deb822 .sources files alike.
  if [ -f /etc/apt/sources.list ]; then sed -n 's/^deb \(.*\)$/deb-src \1/p' /etc/apt/sources.list >"$apt/sources.list"; fi
  for f in /etc/apt/sources.list.d/*.list; do [ -f "$f" ] && sed -n 's/^deb \(.*\)$/deb-src \1/p' "$f" >>"$apt/sources.list"; done
  for f in /etc/apt/sources.list.d/*.sources; do [ -f "$f" ] && sed 's/^Types: deb$/Types: deb-src/' "$f" >"$apt/parts/$(basename "$f")"; done
  set -- -o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts="$apt/parts" -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User=root
  apt-get -qq "$@" update || die "apt-get update of the deb-src indexes failed"
  (cd "$dir" && apt-get -qq "$@" source --download-only "socat=$version") || die "apt-get source socat=$version failed (a version Debian no longer carries: pin the new one here, with its sums)"
  check_sums "$dir"
}

# The pinned sums, from this file: never from a file beside the source.
check_sums() {
  printf '%s  %s\n' "$orig_sha256" "socat_$upstream.orig.tar.gz" "$debian_sha256" "socat_$version.debian.tar.xz" "$dsc_sha256" "socat_$version.dsc" |
    (cd "$1" && sha256sum --quiet -c - >/dev/null 2>&1) || die "the source of socat $version in $1 does not match the SHA-256 sums pinned in deploy/image/socat.sh"
}

build() {
  dir=$1
  out=$2
  [ -f "$dir/socat_$version.dsc" ] || die "no socat_$version.dsc in $dir (socat.sh fetch $dir)"
  check_sums "$dir"
  wrong=$(missing_tools)
  [ -z "$wrong" ] || die "the build tools are not the versions of deploy/image/build-packages.txt (the image's socat would be other bytes; apt-get install \$(socat.sh missing-tools)):
$(echo "$wrong" | while read -r w; do echo "  want $w, have $(dpkg-query -W -f='${Version}' "${w%%=*}" 2>/dev/null || echo none)"; done)"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  # The compiler's warnings and dpkg-source's note that it has no key for the .dsc (the sums above are checked) go to a
  # log, shown when a step fails.
  log="$work/build.log"
  step() { "$@" >>"$log" 2>&1 || { cat "$log" >&2; die "building socat failed at: $*"; }; }
  step dpkg-source -x "$dir/socat_$version.dsc" "$work/src"
  cd "$work/src"
  SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -STimestamp)
  export SOURCE_DATE_EPOCH
  # Debian's own flags for packages (hardening: stack protector, fortify, relro, now, PIE).
  eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
  step ./configure --prefix=/usr --disable-openssl --disable-libwrap --disable-readline
  step make socat
  strip --remove-section=.comment --remove-section=.note --strip-unneeded socat
  mkdir -p "$out/usr/bin"
  install -m 755 socat "$out/usr/bin/socat"
}

# The pins of build-packages.txt that this machine does not have installed at that version.
missing_tools() {
  here=$(cd "$(dirname "$0")" && pwd)
  want=$(grep -v '^#' "$here/build-packages.txt")
  have=$(dpkg-query -W -f='${Package}=${Version}\n' $(echo "$want" | sed 's/=.*//') 2>/dev/null | sed 's/:[a-z0-9]*=/=/')
  echo "$want" | while read -r w; do echo "$have" | grep -qxF "$w" || echo "$w"; done
}

cached() {
  here=$(cd "$(dirname "$0")" && pwd)
  hash=$(cat "$here/socat.sh" "$here/build-packages.txt" | sha256sum | cut -c1-16)
  echo "${YOKE_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/yoke/image}/socat-$version-$hash"
}

case ${1:-} in
  fetch) [ $# -eq 2 ] || die "usage: socat.sh fetch DIR"; fetch "$2" ;;
  missing-tools) missing_tools ;;
  build-packages) grep -v '^#' "$(cd "$(dirname "$0")" && pwd)/build-packages.txt" ;;
  build) [ $# -eq 3 ] || die "usage: socat.sh build DIR OUT"; build "$2" "$3" ;;
  cached) cached ;;
  ensure)
    dest=$(cached)
    if [ ! -x "$dest/usr/bin/socat" ]; then
      tmp="$dest.part.$$"
      rm -rf "$tmp"
      "$0" fetch "$tmp/src"
      "$0" build "$tmp/src" "$tmp/built"
      mkdir -p "$(dirname "$dest")"
      # Another ensure may have finished first: its build is the same.
      mv -T "$tmp/built" "$dest" 2>/dev/null || [ -x "$dest/usr/bin/socat" ] || die "could not move the build to $dest"
      rm -rf "$tmp"
    fi
    echo "$dest" ;;
  *) die "usage: socat.sh fetch DIR | build DIR OUT | cached | ensure | build-packages | missing-tools" ;;
esac
