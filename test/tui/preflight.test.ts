import { expect, test } from "bun:test";
import { localeNotice, terminalProblem } from "../../src/tui/preflight.ts";

test("TERM=dumb and a too-small terminal are refused with what to do instead; a normal terminal is fine", () => {
  expect(terminalProblem({ TERM: "dumb" }, 80, 24)).toContain("TERM=dumb");
  expect(terminalProblem({ TERM: "dumb" }, 80, 24)).toContain("yoke -p");
  expect(terminalProblem({ TERM: "xterm" }, 10, 24)).toContain("10x24");
  expect(terminalProblem({ TERM: "xterm" }, 80, 3)).toContain("at least 20x5");
  expect(terminalProblem({ TERM: "xterm" }, 80, 24)).toBeNull();
  // A size the system does not report (0) is not called too small.
  expect(terminalProblem({ TERM: "xterm" }, 0, 0)).toBeNull();
});

test("a locale that is set and not UTF-8 gets a notice; unset or UTF-8 does not", () => {
  expect(localeNotice({ LANG: "C" })).toContain("not UTF-8");
  expect(localeNotice({ LANG: "en_US.UTF-8", LC_ALL: "en_US.ISO-8859-1" })).toContain("ISO-8859-1");
  expect(localeNotice({ LANG: "en_US.utf8" })).toBeNull();
  expect(localeNotice({})).toBeNull();
});
