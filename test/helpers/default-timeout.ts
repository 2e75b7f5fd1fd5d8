/**
 * Preloaded by bunfig.toml for every test file. Bun 1.4.5 ignores `[test] timeout` in bunfig.toml, so the
 * suite ran at Bun's 5 s default and binary-spawning tests failed whenever the shared machine was busy.
 * Per-test timeouts given in a test still win.
 */
import { setDefaultTimeout } from "bun:test";

setDefaultTimeout(30_000);
