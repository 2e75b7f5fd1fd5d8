/**
 * Preloaded by bunfig.toml for every test run. Bun 1.4.5 ignores `[test] timeout` in bunfig.toml, and
 * `setDefaultTimeout` applies only to the file that calls it (a preload's call reaches the first test file only), so
 * the suite ran at Bun's 5 s default and binary-spawning tests failed whenever the machine was busy. A loader
 * plugin puts the call at the top of every test file instead, on its first line so line numbers stay true.
 * Per-test timeouts given in a test still win. The default is twice a wait's limit (wait-for.ts WAIT_MS), so a wait
 * that never sees its condition fails with its own message naming what never happened, not a bare test timeout.
 */
import { plugin } from "bun";
import { readFileSync } from "node:fs";

const DEFAULT_TIMEOUT_MS = 60_000;

plugin({
  name: "yoke-test-default-timeout",
  setup(build) {
    build.onLoad({ filter: /\.test\.ts$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      const prefix = `import { setDefaultTimeout as __yokeDefaultTimeout } from "bun:test"; __yokeDefaultTimeout(${DEFAULT_TIMEOUT_MS}); `;
      // A shebang must stay the first line: the call goes at the start of the second.
      const cut = text.startsWith("#!") ? text.indexOf("\n") + 1 : 0;
      return { contents: cut > 0 ? text.slice(0, cut) + prefix + text.slice(cut) : prefix + text, loader: "ts" };
    });
  },
});
