/**
 * The binary's entry (build.ts): `yoke --version` (or `-v`) alone is answered here, with no other module loaded;
 * everything else is src/main.ts, the composition root, imported as it stands.
 *
 * Why a module of its own: `--version` is Bun's own start plus what the entry loads. With main.ts as the entry, its
 * static imports and its own code cost `--version` ~60 page faults (~0.5 ms of CPU, near a tenth of it) over an entry
 * that imports nothing (Bun 1.4.5, issue 21); the other ways in pay one small chunk more. YOKE_TIMING=1 goes through
 * main.ts, which records its phase marks.
 */
// The version build.ts defines (the same value src/version.ts exports; importing that module would load a chunk).
declare const YOKE_VERSION: string | undefined;

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v") && process.env.YOKE_TIMING !== "1") {
  try {
    // Bun.write, not process.stdout: making the Node stream costs more than the whole start (src/util/output.ts).
    await Bun.write(Bun.stdout, `${typeof YOKE_VERSION === "string" ? YOKE_VERSION : "0.1.0-dev"} (yoke)\n`);
  } catch {
    // EPIPE: `yoke --version | true`.
  }
  // Bun.write resolved: the line is with the reader. Exiting now skips the event loop's last turn.
  process.exit(0);
} else await import("./main.ts");

// A module (for the top-level await), exporting nothing.
export {};
