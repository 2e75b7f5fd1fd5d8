/**
 * node:fs/promises, loaded by its first caller. Importing it costs a start ~2 ms of CPU in Bun 1.4.5 (node:fs itself is
 * loaded anyway), and a run's first request needs none of its users: the scratch-folder sweep starts after it, and
 * Grep and Glob read with it when called (issue 21; test/startup/module-loads.test.ts).
 */
export const fsp = (): typeof import("node:fs/promises") => require("node:fs/promises") as typeof import("node:fs/promises");
