import { SettingsError } from "../config/load.ts";
import { yokeDir } from "../config/paths.ts";
import { UsageError, type ParsedArgs } from "../cli/args.ts";
import { builtinTools } from "../cli/builtin-tools.ts";
import { compose, type Runtime } from "../cli/compose.ts";
import type { PermissionMode } from "../permission/types.ts";
import { listSessions } from "../session/list.ts";
import { listSlashCommands } from "../extension/runtime.ts";
import { createDiagnostics } from "../util/diagnostics.ts";
import { writeOut } from "../util/output.ts";
import { createController } from "./controller.ts";
import { openHistory } from "./history.ts";
import { matchesKey, type Screen } from "./screen.ts";
import { style } from "./theme.ts";

/**
 * The session behind the drawn screen: picks a session for a bare `--resume`, composes the Runtime (as `-p` does,
 * with `interactive: true`), wires keys and the controller, runs until exit, then shuts down. Returns the exit code.
 */
export async function runSession(o: {
  args: ParsedArgs;
  screen: Screen;
  /** Lines sent before the session was ready, in order. */
  early: string[];
  stopScreen(): void;
  onSessionId(id: string): void;
  /** Hands over what to do when the terminal goes away (called at once if it already has), with the exit code. */
  onTerminalGone(fn: (code: number) => void): void;
}): Promise<number> {
  const { args, screen, stopScreen } = o;
  let rt: Runtime;
  // `--resume` without an id: a picker of this folder's sessions, newest first.
  if (args.flags.resume === true) {
    const id = await pickSession(screen, process.cwd());
    if (id === null) {
      stopScreen();
      createDiagnostics().error("no session picked");
      return 1;
    }
    args.flags.resume = id;
  }

  const composeFor = async (a: ParsedArgs): Promise<Runtime> => compose({ args: a, cwd: process.cwd(), builtinTools: builtinTools(), interactive: true });
  try {
    rt = await composeFor(args);
    o.onSessionId(rt.sessionId);
  } catch (e) {
    stopScreen();
    if (e instanceof SettingsError || e instanceof UsageError) {
      createDiagnostics().error(e.message);
      return 1;
    }
    throw e;
  }
  const startMode = rt.permissions.mode;
  const modes: PermissionMode[] = ["default", "acceptEdits", "plan"];
  if (startMode === "bypassPermissions" || args.flags["allow-dangerously-skip-permissions"]) modes.push("bypassPermissions");
  let current: Runtime = rt;
  const history = openHistory({ yokeDir: yokeDir(rt.env), project: rt.cwd, sessionId: () => current.sessionId, onError: (m) => screen.add(style.red(`  ${m}`)) });
  for (const h of history.entries) screen.editor.addToHistory(h);

  const ctl = createController({
    rt,
    screen,
    modes,
    // Skills, custom and plugin commands (issue 14) and MCP prompts join the `/` menu and /help; typed, they run
    // through the same path as in `-p` (src/cli/prompt-turn.ts).
    externalCommands: () => [
      ...listSlashCommands(current).map((c) => ({ name: c.name, description: `${c.description} (${c.source})`, ...(c.argumentHint ? { argumentHint: c.argumentHint } : {}) })),
      ...current.mcp.promptCommands().map((name) => ({ name, description: "MCP prompt" })),
    ],
    slashEnabled: !args.flags["disable-slash-commands"],
    addHistory: (t) => history.add(t),
    replaceRuntime: async (kind) => {
      const a: ParsedArgs = { ...args, flags: { ...args.flags } };
      delete a.flags.resume;
      delete a.flags.continue;
      delete a.flags["fork-session"];
      delete a.flags["session-id"];
      if (kind === "resume") {
        const id = await pickSession(screen, current.cwd, current.sessionId);
        if (id === null) return null;
        a.flags.resume = id;
      }
      try {
        const next = await composeFor(a);
        await current.shutdown();
        current = next;
        o.onSessionId(next.sessionId);
        return next;
      } catch (e) {
        screen.add(style.red(`  yoke: ${(e as Error).message}`));
        return null;
      }
    },
  });

  // "Press again" is a state, not a timer: the second Esc / Ctrl+C acts, any other key disarms it.
  let armed: "escape" | "ctrl+c" | null = null;
  const arm = (key: "escape" | "ctrl+c", hint: string) => {
    armed = key;
    screen.setActivity(style.gray(hint));
  };
  screen.tui.addInputListener((data) => {
    if (screen.dialogOpen()) return undefined;
    const was = armed;
    if (armed) {
      armed = null;
      screen.setActivity("");
    }
    if (matchesKey(data, "escape")) {
      if (screen.editor.isShowingAutocomplete()) return undefined;
      if (ctl.interrupt()) return { consume: true };
      // Esc twice on an empty input opens rewind.
      if (screen.editor.getText()) return undefined;
      if (was === "escape") void ctl.rewind();
      else arm("escape", "Press Esc again to rewind");
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+o")) {
      ctl.toggleExpanded();
      return { consume: true };
    }
    if (matchesKey(data, "shift+tab")) {
      ctl.cycleMode();
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+c")) {
      // Ctrl+C stops the running turn, else clears the input, else (twice) exits.
      if (ctl.interrupt()) return { consume: true };
      if (screen.editor.getText()) {
        screen.editor.setText("");
        screen.render();
      } else if (was === "ctrl+c") void ctl.exit(0);
      else arm("ctrl+c", "Press Ctrl+C again to exit");
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+d") && !screen.editor.getText()) {
      void ctl.exit(0);
      return { consume: true };
    }
    return undefined;
  });
  screen.editor.onSubmit = (text) => {
    screen.editor.setText("");
    void ctl.submit(text);
  };
  screen.setActivity("");

  // The terminal went away (window closed, ssh dropped) or the process is told to stop (SIGINT, SIGTERM: index.ts).
  o.onTerminalGone((code) => void ctl.exit(code, "other"));

  await ctl.start(args.positionals.join(" ").trim() || undefined);
  for (const t of o.early.splice(0)) await ctl.submit(t);
  const code = await ctl.exited;
  const final = ctl.runtime();
  await final.plugins.background.drain(5000).catch(() => {});
  stopScreen();
  await final.shutdown();
  if (final.transcript.store.path) writeOut(`\nResume this session with: yoke --resume ${final.sessionId}\n`);
  return code;
}

/** The session picker: this folder's sessions, newest first, with their first prompt and age. null: cancelled or none. */
async function pickSession(screen: Screen, cwd: string, exclude?: string): Promise<string | null> {
  const rows = listSessions(cwd).filter((r) => r.id !== exclude && r.turns > 0);
  if (!rows.length) {
    screen.add(style.yellow(`  No earlier session in ${cwd}.`));
    return null;
  }
  rows.sort((a, b) => b.mtime.getTime() - a.mtime.getTime());
  const age = (d: Date) => {
    const s = Math.max(0, (Date.now() - d.getTime()) / 1000);
    return s < 60 ? `${Math.round(s)}s ago` : s < 3600 ? `${Math.round(s / 60)}m ago` : s < 86400 ? `${Math.round(s / 3600)}h ago` : `${Math.round(s / 86400)}d ago`;
  };
  return screen.choose(
    style.bold("Resume which session?"),
    rows.slice(0, 50).map((r) => ({ value: r.id, label: (r.title || r.firstPrompt || "(no prompt)").split("\n")[0]!.slice(0, 60), description: `${age(r.mtime)} · ${r.turns} prompts · ${r.id.slice(0, 8)}` })),
  );
}
