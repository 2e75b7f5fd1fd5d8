# yoke in a container: the glibc binary built with Bun on Debian, run on an image made FROM scratch of exactly the
# files it needs (deploy/image): glibc, git, ripgrep, bubblewrap and socat (the Bash sandbox; socat built from source
# without OpenSSL), bash, busybox (/bin/sh and
# the everyday commands), tini, the CA bundle and a passwd with the non-root user yoke (10001). No package manager, no caches, no history.
#
#   docker build -t yoke .
#   docker run --rm --read-only --tmpfs /tmp -v yoke-home:/home/yoke -v "$PWD":/work \
#     -e ANTHROPIC_API_KEY yoke -p "fix the failing test" --output-format json
#
# Configuration is by environment alone: ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), ANTHROPIC_BASE_URL,
# ANTHROPIC_MODEL, and YOKE_SETTINGS (settings JSON, or the path of a mounted settings file).
# HOME (/home/yoke) and the workspace (/work) are the only places written: mount them as volumes and the root
# filesystem can be read-only. test/release/container.test.ts holds this file's contract and runs it in a root
# assembled from deploy/image; bench/image.ts builds the same layers and measures them (README, "Container image").
# Size as BuildKit pushes it (bun run bench:image --buildkit): 53.7 MiB with zstd layers at level 19 (OCI media types;
# Docker 23+ or containerd 1.5+ pull them), 61.0 MiB with gzip layers. A release publishes both for linux/amd64 and
# linux/arm64 with release/image.ts (.github/workflows/image.yml): NAME:VERSION with zstd level 19 layers, and
# NAME:VERSION-gzip for older engines. The first of its commands, for a local buildx builder (release/image.ts --dry-run --image yoke):
#   docker buildx build --platform linux/amd64,linux/arm64 --output 'type=image,"name=yoke:0.1.0,yoke:latest",oci-mediatypes=true,compression=zstd,compression-level=19,force-compression=true' .
ARG BUN_VERSION=1.4.5
ARG DEBIAN_VERSION=bookworm-slim

FROM oven/bun:${BUN_VERSION}-slim AS build
WORKDIR /src
# build.ts and the build-*.ts modules it imports.
COPY package.json bun.lock bunfig.toml tsconfig.json build*.ts ./
# The bytecode layout profiles build.ts hands to the compiler (a smaller resident set per run).
COPY release/bytecode-order.txt release/bytecode-order-three-turns.txt ./release/
RUN bun install --frozen-lockfile --production --ignore-scripts
COPY src ./src
COPY plugins ./plugins
COPY hooks ./hooks
RUN bun run build.ts && ./dist/yoke --version

# socat for the Bash sandbox's network bridges, built from Debian's pinned source without OpenSSL and TCP wrappers
# (deploy/image/socat.sh: the source's SHA-256 sums and the build tools' versions are pinned; .ci/install-deps.sh and
# bench/image.ts build the same bytes for the tests and the size bench).
FROM debian:${DEBIAN_VERSION} AS socat
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
COPY deploy/image/socat.sh deploy/image/build-packages.txt /image/
RUN apt-get update \
 && /image/socat.sh build-packages | xargs apt-get install -y --no-install-recommends \
 && /image/socat.sh fetch /tmp/socat-src \
 && /image/socat.sh build /tmp/socat-src /built \
 && rm -rf /var/lib/apt/lists/* /tmp/socat-src

# The image's files, taken from Debian packages pinned in deploy/image/packages.txt: assemble.sh copies the paths of
# deploy/image/files.txt into /rootfs and lays the socat built above over them (bench/image.ts runs the same script on
# the same packages).
FROM debian:${DEBIAN_VERSION} AS rootfs
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
COPY deploy/image/ /image/
COPY --from=socat /built/ /built/
RUN apt-get update \
 && grep -v '^#' /image/packages.txt | xargs apt-get install -y --no-install-recommends \
 && /image/assemble.sh / /rootfs /built \
 && rm -rf /var/lib/apt/lists/*

FROM scratch
# Ownership is kept by COPY --from: /home/yoke and /work belong to yoke, everything else to root.
COPY --from=rootfs /rootfs/ /
COPY --from=build /src/dist/yoke /usr/local/bin/yoke
# The entrypoint of a fleet task (deploy/k8s: one per JOB_COMPLETION_INDEX).
COPY --chmod=755 deploy/fleet/yoke-task.sh /usr/local/bin/yoke-task
USER 10001:10001
ENV PATH=/usr/local/bin:/usr/bin:/bin \
    HOME=/home/yoke \
    YOKE_CONFIG_DIR=/home/yoke/.yoke \
    CLAUDE_CONFIG_DIR=/home/yoke/.claude \
    DISABLE_AUTOUPDATER=1
WORKDIR /work
VOLUME ["/home/yoke", "/work"]
# tini reaps the children of tools and hooks as PID 1.
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/yoke"]
CMD ["--help"]
