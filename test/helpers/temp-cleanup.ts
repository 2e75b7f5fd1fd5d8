/**
 * Preloaded by bunfig.toml. `bun test` ends without a process "exit" event, so tempDir()'s exit handler never ran
 * and every suite run left about two thousand folders in TMPDIR (a full disk failed a CI build). A preload's
 * afterAll is global: it runs once, after the last test file.
 */
import { afterAll } from "bun:test";
import { removeTempDirsInBackground } from "./tmp.ts";

afterAll(removeTempDirsInBackground);
