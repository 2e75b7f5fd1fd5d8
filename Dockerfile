# yoke in a container: a musl binary built with Bun on Alpine, run on plain Alpine as a non-root user.
#
#   docker build -t yoke .
#   docker run --rm --read-only --tmpfs /tmp -v yoke-home:/home/yoke -v "$PWD":/work \
#     -e ANTHROPIC_API_KEY yoke -p "fix the failing test" --output-format json
#
# Configuration is by environment alone: ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), ANTHROPIC_BASE_URL,
# ANTHROPIC_MODEL, and YOKE_SETTINGS (settings JSON, or the path of a mounted settings file).
# HOME (/home/yoke) and the workspace (/work) are the only places written: mount them as volumes and the root
# filesystem can be read-only. test/release/container.test.ts holds this file's contract.
#
# Size: with Docker's default gzip layers the image is ~62-64 MiB, 50 MiB of it the binary's layer. zstd layers
# (BuildKit, OCI media types) take that layer to ~41 MiB and the image to ~52-54 MiB (README, "Size and memory"):
#   docker buildx build --output type=image,name=yoke,oci-mediatypes=true,compression=zstd,compression-level=19,force-compression=true .
ARG BUN_VERSION=1.4.5
ARG ALPINE_VERSION=3.22

FROM oven/bun:${BUN_VERSION}-alpine AS build
WORKDIR /src
COPY package.json bun.lock bunfig.toml tsconfig.json build.ts build-plugins.ts ./
# The bytecode layout profile build.ts hands to the compiler (a smaller resident set per run).
COPY release/bytecode-order.txt ./release/
RUN bun install --frozen-lockfile --production --ignore-scripts
COPY src ./src
COPY plugins ./plugins
COPY hooks ./hooks
RUN bun run build.ts && ./dist/yoke --version

FROM alpine:${ALPINE_VERSION}
# libstdc++ and libgcc: Bun's musl runtime links them. tini reaps the children of tools and hooks as PID 1.
RUN apk add --no-cache ca-certificates git ripgrep bubblewrap libstdc++ libgcc tini \
 && adduser -D -u 10001 -h /home/yoke -s /sbin/nologin yoke \
 && install -d -o 10001 -g 10001 /work
COPY --from=build /src/dist/yoke /usr/local/bin/yoke
# The entrypoint of a fleet task (deploy/k8s: one per JOB_COMPLETION_INDEX).
COPY --chmod=755 deploy/fleet/yoke-task.sh /usr/local/bin/yoke-task
USER 10001:10001
ENV HOME=/home/yoke \
    YOKE_CONFIG_DIR=/home/yoke/.yoke \
    CLAUDE_CONFIG_DIR=/home/yoke/.claude \
    DISABLE_AUTOUPDATER=1
WORKDIR /work
VOLUME ["/home/yoke", "/work"]
ENTRYPOINT ["/sbin/tini", "--", "/usr/local/bin/yoke"]
CMD ["--help"]
