import type { Runtime } from "../cli/compose.ts";
import { modelInfo } from "../provider/models.ts";
import { VERSION } from "../version.ts";
import type { Screen } from "./screen.ts";
import { createStatusLine, type StatusLineSetting } from "./status-line.ts";
import { style } from "./theme.ts";

/**
 * The line under the input: model, permission mode, context used and cost, or the settings `statusLine` command's
 * output (which then gets the session's state as JSON each time it changes). `update()` redraws it. Never throws.
 */
export function createStatusBar(screen: Screen, state: { rt: () => Runtime; contextTokens: () => number }) {
  type Custom = { runner: ReturnType<typeof createStatusLine>; lines: string[] | null };
  let custom: Custom | null = null;
  const numbers = () => {
    const rt = state.rt();
    const window = modelInfo(rt.models.current()).contextWindow;
    const used = Math.min(100, Math.round((state.contextTokens() / window) * 100));
    return { rt, window, used, mode: rt.permissions.mode };
  };
  const text = () => {
    const { rt, used, mode } = numbers();
    const modeText = mode === "default" ? "default mode" : mode === "acceptEdits" ? "accept edits on" : mode === "plan" ? "plan mode on" : `${mode} on`;
    // The command's lines replace the default line; the mode stays visible when it is not the default.
    if (custom?.lines) return [...custom.lines, ...(mode === "default" ? [] : [style.gray(`${modeText} (shift+tab)`)])].join("\n");
    return style.gray(`${rt.models.current()} · ${modeText} (shift+tab) · ${used}% context · $${rt.deps.usage.totalCost().toFixed(4)}`);
  };
  return {
    /** Starts the settings statusLine command of this runtime, if it has one (again after /clear or /resume). */
    attach(rt: Runtime) {
      custom?.runner.stop();
      const setting = (rt.settings.merged as { statusLine?: StatusLineSetting }).statusLine;
      custom = null;
      if (!setting?.command) return;
      const c: Custom = {
        lines: null,
        runner: createStatusLine({
          setting,
          cwd: rt.cwd,
          env: rt.env,
          size: () => ({ columns: screen.tui.terminal.columns, rows: screen.tui.terminal.rows }),
          onLines: (lines) => {
            c.lines = lines as string[] | null;
            screen.setStatus(text());
          },
          onError: (m) => screen.add(style.red(`  ${m}`)),
        }),
      };
      custom = c;
    },
    update() {
      if (custom) {
        const { rt, window, used, mode } = numbers();
        custom.runner.update({
          cwd: rt.session.cwd,
          session_id: rt.sessionId,
          transcript_path: rt.transcript.store.path,
          model: { id: rt.models.current(), display_name: rt.models.current() },
          workspace: { current_dir: rt.session.cwd, project_dir: rt.cwd, added_dirs: rt.permissions.workingDirectories.slice(1) },
          version: VERSION,
          cost: { total_cost_usd: rt.deps.usage.totalCost(), total_api_duration_ms: rt.deps.usage.apiMs() },
          context_window: { context_window_size: window, used_percentage: used, remaining_percentage: 100 - used },
          permission_mode: mode,
        });
      }
      screen.setStatus(text());
    },
    stop: () => custom?.runner.stop(),
  };
}
