/**
 * Preloaded (`bun --preload`) into a source run of yoke: at exit, writes the paths of every module the run loaded
 * (Bun's require.cache holds ESM modules too) to $YOKE_MODULE_LOG as JSON. For test/startup/module-loads.test.ts.
 */
import { writeFileSync } from "node:fs";

const out = process.env.YOKE_MODULE_LOG;
if (out) process.on("exit", () => writeFileSync(out, JSON.stringify(Object.keys(require.cache).filter((k) => k !== import.meta.path))));
