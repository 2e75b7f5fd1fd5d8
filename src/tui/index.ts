import "../util/zod-setup.ts"; // first: zod reads the setting as each schema is made
import { ProcessTerminal } from "@mariozechner/pi-tui";
import type { ParsedArgs } from "../cli/args.ts";
import { createDiagnostics } from "../util/diagnostics.ts";
import { divertStderr, onStdStreamError, stdoutSize, writeErr } from "../util/output.ts";
import { VERSION } from "../version.ts";
import { createScreen, matchesKey } from "./screen.ts";
import { style } from "./theme.ts";
import { terminalProblem, localeNotice } from "./preflight.ts";
import { releaseJit } from "../util/jit-policy.ts";

/**
 * `yoke` at a terminal (issue 12): the interactive session. Composes the same Runtime as `-p` and renders its
 * events; the loop never learns a terminal exists. Returns the exit code; the transcript is written as the session
 * goes, so every way out (exit, Ctrl+D, a signal, a closed terminal, a render failure) leaves it whole.
 *
 * Startup is a feature: this file loads only the screen, draws the input prompt, and then loads and composes the
 * session (src/tui/run-session.ts) while the person can already type; lines sent before it is ready wait for it.
 */
export async function runInteractive(args: ParsedArgs): Promise<number> {
  // A person's session repeats its work (renders, keys, turns): the JIT pays back from the start.
  releaseJit();
  const size = stdoutSize();
  const problem = terminalProblem(process.env, size.columns, size.rows);
  if (problem) {
    writeErr(`${problem}\n`);
    return 1;
  }
  const terminal = new ProcessTerminal();
  const screen = createScreen(terminal, { renderFault: process.env.YOKE_TEST_RENDER_FAULT || undefined });
  let sessionId: string | null = null;
  let stopped = false;
  // While the screen is up, what anything writes to stderr (a failed hook, a plugin or MCP warning) becomes a line
  // in the session instead of text over the screen.
  const restoreStderr = divertStderr((l) => {
    if (l.trim()) screen.add(style.gray(`  ${l.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/[\x00-\x08\x0b-\x1f\x7f]/g, " ")}`));
  });
  const stopScreen = () => {
    if (stopped) return;
    stopped = true;
    try {
      screen.stop();
    } catch {
      // A terminal that went away refuses its modes back (EIO); there is nothing left to restore.
    } finally {
      restoreStderr();
    }
  };
  // A failure in a render or a key handler must not leave a raw-mode terminal with a stack trace over it.
  const crash = (e: unknown) => {
    stopScreen();
    createDiagnostics().error(`the interactive session failed: ${e instanceof Error ? e.message : String(e)}`);
    if (sessionId) writeErr(`The conversation is saved: resume it with \`yoke --resume ${sessionId}\`.\n`);
    process.exit(1);
  };
  process.on("uncaughtException", crash);
  process.on("unhandledRejection", crash);
  // The terminal can go away at any moment (window closed, ssh dropped): its input ends, writes to it fail with EIO,
  // SIGHUP arrives, in any order. That ends the session as an exit does, with SessionEnd and the transcript whole; it
  // is not a crash (an unheard write error used to exit at once, cutting SessionEnd short). Frames are no longer drawn.
  let terminalGone: { code: number } | null = null;
  let onTerminalGone: (code: number) => void = (code) => process.exit(code);
  const gone = (code: number) => () => {
    if (terminalGone) return;
    terminalGone = { code };
    stopScreen();
    onTerminalGone(code);
  };
  process.on("SIGHUP", gone(129));
  process.stdin.on("end", gone(1));
  onStdStreamError(gone(129));
  // Told to stop from outside (kill, a process manager, an IDE closing its terminal), at any stage, composing included:
  // the same ending, exit 128 + the signal. Unheard, SIGINT and SIGTERM killed yoke at once with the terminal still in
  // raw mode and its cursor hidden, and no SessionEnd. A second one leaves at once: a stuck hook cannot hold the process.
  let signalled = false;
  const stop = (code: number) => () => {
    if (signalled) process.exit(code);
    signalled = true;
    gone(code)();
  };
  process.on("SIGINT", stop(130));
  process.on("SIGTERM", stop(143));

  screen.add(`${style.bold("yoke")} ${style.gray(`${VERSION} · ${process.cwd()}`)}`);
  const locale = localeNotice(process.env);
  if (locale) screen.add(style.yellow(`  ${locale}`));
  for (const f of args.ignored ?? []) screen.add(style.yellow(`  ${f} is a Claude Code option yoke does not support yet; it is ignored.`));
  screen.setStatus(style.gray("starting…"));
  // Until the session is ready: typed lines wait, Ctrl+C / Ctrl+D leave at once (nothing to save yet).
  const early: string[] = [];
  screen.editor.onSubmit = (text) => {
    screen.editor.setText("");
    early.push(text);
    screen.setActivity(style.gray(early.map((t) => `  queued: ${t.split("\n")[0]}`).join("\n")));
  };
  const leaveEarly = screen.tui.addInputListener((data) => {
    if (matchesKey(data, "ctrl+c") || (matchesKey(data, "ctrl+d") && !screen.editor.getText())) {
      stopScreen();
      process.exit(130);
    }
    return undefined;
  });
  // The first frame is written before the session's modules load (their evaluation would hold it back), and the
  // mark says when it was written, not when it was asked for (bench/tui.ts, issue 12 point 9).
  const firstFrame = new Promise<void>((resolve) => {
    const write = terminal.write.bind(terminal);
    terminal.write = (data) => {
      write(data);
      if (!data.includes("\x1b[?2026h")) return;
      terminal.write = write;
      resolve();
    };
  });
  screen.tui.start();
  await firstFrame;
  performance.mark("yoke:prompt-drawn");

  const { runSession } = await import("./run-session.ts");
  leaveEarly();
  return runSession({
    args,
    screen,
    early,
    stopScreen,
    onSessionId: (id) => (sessionId = id),
    onTerminalGone(fn) {
      onTerminalGone = fn;
      if (terminalGone) fn(terminalGone.code);
    },
  });
}
