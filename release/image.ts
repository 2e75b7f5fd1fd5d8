/**
 * `bun run release/image.ts --image NAME [--version V] [--push] [--dry-run]`: the container image a release publishes
 * (issue 18), built from the Dockerfile with `docker buildx` for linux/amd64 and linux/arm64, twice:
 *
 * - `NAME:V` (and `NAME:latest` for a version without a pre-release part): zstd layers at level 19 under OCI media
 *   types, the image under 60 MiB compressed; Docker Engine 23+ and containerd 1.5+ pull it.
 * - `NAME:V-gzip` (and `NAME:latest-gzip`): the same image with gzip layers under Docker media types, for engines
 *   that cannot pull zstd layers (Docker before 23, containerd before 1.5).
 *
 * The second build reuses the first one's cache: only the export differs. `imageVariants` is the one place the
 * compression flags live: bench/image.ts measures the layers with the compressors and levels it names, and
 * test/release/image-publish.test.ts runs .github/workflows/image.yml's step against a stand-in `docker` and checks
 * the flags it passes are these. `--dry-run` prints the commands instead of running them.
 */
import pkg from "../package.json" with { type: "json" };

export type ImageVariant = {
  /** What the tags end with: "" for the default tag. */
  suffix: string;
  compression: "zstd" | "gzip";
  /** BuildKit's compression-level; undefined is the compressor's default (gzip: Go's compress/gzip level 6). */
  level?: number;
  ociMediaTypes: boolean;
  /**
   * Whether buildx adds its provenance attestation (on by default when pushing). Attestations live in an OCI index
   * beside the platforms' images, so the tag for older engines goes without: a manifest list of Docker media types.
   */
  provenance: boolean;
  /** The engines that pull it (README, "Container image"). */
  pulledBy: string;
};

export const imageVariants: readonly ImageVariant[] = [
  { suffix: "", compression: "zstd", level: 19, ociMediaTypes: true, provenance: true, pulledBy: "Docker Engine 23.0 or newer, containerd 1.5 or newer" },
  { suffix: "-gzip", compression: "gzip", ociMediaTypes: false, provenance: false, pulledBy: "every engine, including Docker before 23 and containerd before 1.5" },
];

export const imagePlatforms = ["linux/amd64", "linux/arm64"] as const;

/** The compressor and level of a variant as bench/buildkit-sizes.go takes it: "zstd:19", "gzip". */
export const compressorSpec = (v: Pick<ImageVariant, "compression" | "level">) => (v.level === undefined ? v.compression : `${v.compression}:${v.level}`);

/** The value of `--output` for a variant: BuildKit's image exporter, its names as one CSV field (quoted when several). */
export function outputFlag(v: ImageVariant, names: string[], push: boolean): string {
  const name = `name=${names.join(",")}`;
  return ["type=image", names.length > 1 ? `"${name}"` : name, ...(push ? ["push=true"] : []), `oci-mediatypes=${v.ociMediaTypes}`, `compression=${v.compression}`, ...(v.level === undefined ? [] : [`compression-level=${v.level}`]), "force-compression=true"].join(",");
}

/** The tags of a variant: the version's, and latest's unless the version is a pre-release (1.2.0-rc.1). */
export function variantTags(image: string, version: string, v: ImageVariant): string[] {
  return [version, ...(version.includes("-") ? [] : ["latest"])].map((t) => `${image}:${t}${v.suffix}`);
}

/** One `docker buildx build` argv per variant, the default (zstd) first. */
export function buildxCommands(o: { image: string; version: string; push: boolean; context?: string }): string[][] {
  return imageVariants.map((v) => [
    "docker", "buildx", "build",
    "--platform", imagePlatforms.join(","),
    ...(v.provenance ? [] : ["--provenance=false"]),
    "--output", outputFlag(v, variantTags(o.image, o.version, v), o.push),
    o.context ?? ".",
  ]);
}

/** An argv as a line a POSIX shell runs as that argv (the README quotes these lines). */
export const shellLine = (argv: string[]) => argv.map((a) => (/^[\w.,:=\/@%+-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(" ");

function fail(msg: string): never {
  process.stderr.write(`release/image: ${msg}\n`);
  process.exit(2);
}

if (import.meta.main) {
  const argv = process.argv.slice(2);
  const opts: Record<string, string> = {};
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--push" || a === "--dry-run") flags.add(a);
    else if (a === "--image" || a === "--version") {
      const v = argv[++i];
      if (!v || v.startsWith("--")) fail(`${a} needs a value`);
      opts[a] = v;
    } else fail(`unknown argument ${a} (use --image NAME, --version V, --push, --dry-run)`);
  }
  const image = opts["--image"] ?? fail("--image NAME is required (a repository such as registry.example/OWNER/yoke, in lower case)");
  if (!/^[a-z0-9][a-z0-9._\/:-]*$/.test(image) || /:[^/]*$/.test(image.replace(/^[^/]*\//, ""))) fail(`--image ${image}: give a repository in lower case, without a tag`);
  const version = opts["--version"] ?? pkg.version;
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) fail(`--version ${version}: not a version such as ${pkg.version}`);
  for (const cmd of buildxCommands({ image, version, push: flags.has("--push") })) {
    console.log(shellLine(cmd));
    if (flags.has("--dry-run")) continue;
    const p = Bun.spawnSync(cmd, { stdout: "inherit", stderr: "inherit" });
    if (p.exitCode !== 0) fail(`${cmd.slice(0, 3).join(" ")} failed (exit ${p.exitCode}); see above`);
  }
}
