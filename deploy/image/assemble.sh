#!/bin/sh
# Assemble the image's filesystem: assemble.sh SRC DEST [BUILT]
# SRC is a Debian root with packages.txt installed (the Dockerfile's rootfs stage runs it on its own /;
# bench/image.ts on the packages unpacked; test/release/image-root.test.ts on this machine's /). DEST gets the
# paths of files.txt, busybox's applets as links, the CA bundle, a passwd with the user yoke (10001), /tmp,
# /home/yoke and /work, and the /bin, /lib, /lib64 links of a merged /usr; BUILT is a folder of programs built from
# source laid over it (socat.sh's socat, without OpenSSL and TCP wrappers). Nothing else: no package manager,
# no caches, no shell history.
set -eu
export LC_ALL=C
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: assemble.sh SRC DEST [BUILT]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
list="$here/files.txt"
src=$1
mkdir -p "$2"
dest=$(cd "$2" && pwd)
built=
if [ $# -eq 3 ]; then
  [ -d "$3" ] || { echo "assemble.sh: BUILT '$3' is not a folder (deploy/image/socat.sh ensure makes one)" >&2; exit 1; }
  built=$(cd "$3" && pwd)
fi
cd "$src"

n=0
while IFS= read -r line || [ -n "$line" ]; do
  n=$((n + 1))
  case $line in
    '' | '#'*) ;;
    '?'*)
      for p in ${line#?}; do
        if [ -e "$p" ] || [ -L "$p" ]; then cp -a --parents -- "$p" "$dest/"; fi
      done ;;
    '!'*)
      found=
      for p in "$dest"/${line#!}; do
        if [ -e "$p" ] || [ -L "$p" ]; then rm -rf -- "$p"; found=1; fi
      done
      [ -n "$found" ] || { echo "assemble.sh: files.txt line $n: nothing to take out for '$line'" >&2; exit 1; } ;;
    *' -> '*)
      name=${line%% -> *}
      mkdir -p "$dest/$(dirname "$name")"
      ln -sfn "${line#* -> }" "$dest/$name" ;;
    *)
      for p in $line; do
        [ -e "$p" ] || [ -L "$p" ] || { echo "assemble.sh: files.txt line $n: '$line' is not in $src (is its package installed?)" >&2; exit 1; }
        cp -a --parents -- "$p" "$dest/"
      done ;;
  esac
done <"$list"

# The programs built from source, owned by root like the rest.
if [ -n "$built" ]; then
  cp -R --preserve=mode,timestamps "$built/." "$dest/"
fi

# A merged /usr, as Debian 12 has it: /bin/sh, /lib64/ld-linux-x86-64.so.2 and the libraries' old paths resolve.
for d in bin lib lib64; do ln -sfn "usr/$d" "$dest/$d"; done

# busybox's applets (sh, ls, sed, grep, find, tar ...) as links, where no program of that name came before.
for a in $("$dest/usr/bin/busybox" --list); do
  [ -e "$dest/usr/bin/$a" ] || [ -L "$dest/usr/bin/$a" ] || ln -s busybox "$dest/usr/bin/$a"
done

# The CA bundle, made the way update-ca-certificates makes it: Mozilla's certificates, each ending in a newline.
mkdir -p "$dest/etc/ssl/certs"
for c in usr/share/ca-certificates/mozilla/*.crt; do sed -e '$a\' "$c"; done >"$dest/etc/ssl/certs/ca-certificates.crt"
[ -s "$dest/etc/ssl/certs/ca-certificates.crt" ] || { echo "assemble.sh: no certificates under $src/usr/share/ca-certificates/mozilla" >&2; exit 1; }

printf '%s\n' 'root:x:0:0:root:/root:/usr/bin/nologin' 'yoke:x:10001:10001:yoke:/home/yoke:/usr/bin/nologin' >"$dest/etc/passwd"
printf '%s\n' 'root:x:0:' 'yoke:x:10001:' >"$dest/etc/group"
printf '%s\n' 'passwd: files' 'group: files' 'hosts: files dns' >"$dest/etc/nsswitch.conf"
chmod 644 "$dest/etc/passwd" "$dest/etc/group" "$dest/etc/nsswitch.conf"

mkdir -p "$dest/tmp" "$dest/home/yoke" "$dest/work"
chmod 1777 "$dest/tmp"
chmod 755 "$dest/home/yoke" "$dest/work"
# The user's two volumes are its own (engines copy a folder's owner into a new named volume). Not as root (the
# bench unpacking as a user): bench/image.ts writes the owners into the layer itself.
if [ "$(id -u)" = 0 ]; then chown 10001:10001 "$dest/home/yoke" "$dest/work"; fi
