/**
 * A new line in the prompt instead of sending it (issue 12 point 2), typed in a real pseudo-terminal (tmux) as each
 * kind of terminal sends it. Claude Code's documented ways (interactive mode, "multiline input"; observed the same in
 * 2.1.332): `\` + Enter in every terminal, Option/Alt+Enter, Shift+Enter where the terminal reports it, Ctrl+J.
 * Shift+Enter reaches a program as CSI-u (`ESC [13;2u`, the kitty keyboard protocol and terminals set up for it) or
 * as xterm's modifyOtherKeys form (`ESC [27;2;13~`, which pi-tui asks for when no kitty answer comes, as in tmux).
 */
import { expect, test } from "bun:test";
import { lastUserTexts, tuiSuite } from "./tui-helpers.ts";

const session = tuiSuite();
const hex = (s: string) => [...s].map((c) => c.charCodeAt(0).toString(16));

test("Shift+Enter (CSI-u and modifyOtherKeys), Alt+Enter, \\+Enter and Ctrl+J each add a line; Enter sends them as one prompt", async () => {
  const s = await session([{ content: [{ type: "text", text: "Got your six lines." }] }]);
  const { term } = s;
  term.type("one");
  term.keys("-H", ...hex("\x1b[13;2u"));
  await term.waitFor(/^one\n\s*$/m, { where: "screen" });
  term.type("two");
  term.keys("-H", ...hex("\x1b[27;2;13~"));
  term.type("three");
  term.keys("M-Enter");
  term.type("four\\");
  term.keys("Enter");
  term.type("five");
  term.keys("C-j");
  term.type("six");
  // Still in the input, one line each, nothing sent and no stray escape text.
  const screen = await term.waitFor(/^six$/m, { where: "screen" });
  expect(screen).toMatch(/^one\ntwo\nthree\nfour\nfive\nsix\n─+$/m);
  expect(screen).not.toMatch(/\[13;2u|27;2;13|\\$/m);
  expect(s.fake.requests.length).toBe(0);
  term.keys("Enter");
  await term.waitFor("Got your six lines.");
  expect(s.fake.requests.length).toBe(1);
  expect(lastUserTexts(s.fake.requests[0]!)).toContain("one\ntwo\nthree\nfour\nfive\nsix");
});

test("a backslash that is not at the end of the line stays text, and a lone Enter sends", async () => {
  const s = await session([{ content: [{ type: "text", text: "Reply-B7 received." }] }]);
  s.term.type("a\\b path\\");
  s.term.keys("Left", "Enter");
  await s.term.waitFor("Reply-B7 received.");
  expect(lastUserTexts(s.fake.requests[0]!)).toContain("a\\b path\\");
});
