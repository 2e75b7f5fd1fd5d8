// Issue 11 point 7: diagnostics through consola. Levels follow --verbose / --debug, every message is one
// plain line on a pipe (scripts read `yoke: …` lines), colour only on a terminal, and nothing is collapsed.
import { expect, test } from "bun:test";
import { createDiagnostics } from "../../src/util/diagnostics.ts";

const sink = (isTTY = false) => {
  const lines: string[] = [];
  return { lines, stream: { isTTY, write: (t: string) => void lines.push(t) } };
};

const speak = (log: ReturnType<typeof createDiagnostics>) => {
  log.error("e");
  log.warn("w");
  log.log("l");
  log.info("i");
  log.debug("d");
};

test.each([
  [{}, ["e", "w", "l"]],
  [{ verbose: true }, ["e", "w", "l", "i"]],
  [{ debug: true }, ["e", "w", "l", "i", "d"]],
])("level %p shows %p", (flags, shown) => {
  const s = sink();
  speak(createDiagnostics({ ...flags, stream: s.stream }));
  expect(s.lines).toEqual(shown.map((x) => `yoke: ${x}\n`));
});

test("tags name the speaker; warnings and errors say so; repeats are all printed", () => {
  const s = sink();
  const log = createDiagnostics({ stream: s.stream }).withTag("plugin audit");
  for (let i = 0; i < 7; i++) log.warn("disk full");
  log.error("gave up");
  expect(s.lines).toEqual([...Array(7).fill("yoke [plugin audit]: warning: disk full\n"), "yoke [plugin audit]: error: gave up\n"]);
});

test("colour on a terminal only, and only for warnings and errors", () => {
  const tty = sink(true);
  speak(createDiagnostics({ stream: tty.stream }));
  expect(tty.lines[0]).toBe("\x1b[31myoke: e\x1b[39m\n");
  expect(tty.lines[1]).toBe("\x1b[33myoke: w\x1b[39m\n");
  expect(tty.lines[2]).toBe("yoke: l\n");
});
