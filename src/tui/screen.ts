import {
  CombinedAutocompleteProvider,
  Container,
  Editor,
  Input,
  Markdown,
  matchesKey,
  SelectList,
  Text,
  TUI,
  type Component,
  type Terminal,
} from "@mariozechner/pi-tui";
import { editorTheme, markdownTheme as baseMarkdownTheme, selectTheme, style } from "./theme.ts";
import { highlightCode } from "./highlight.ts";
import { fencedPiece, stableCut } from "./stream-markdown.ts";
import { createConversationView, frozen } from "./conversation-view.ts";

const markdownTheme = { ...baseMarkdownTheme, highlightCode };

/**
 * The terminal's layout on pi-tui (chosen by measurement, README "Interactive session"): the conversation so far,
 * the activity line (spinner, queued messages), a dialog when one is open, the prompt input and the status line.
 * pi-tui renders the whole tree and writes only the lines that changed, inside synchronized-output frames (at most
 * one frame per 16 ms, however many deltas arrive); the conversation keeps its finished lines so a frame costs
 * what changed (src/tui/conversation-view.ts).
 * Only this file and the dialogs know pi-tui; the controller talks to the Screen type.
 */
export type Choice = { value: string; label: string; description?: string };

export type StreamView = {
  append(delta: string): void;
  /** The answer as the model finished it (replaces what streamed when it differs). */
  finish(text: string): void;
  text(): string;
};

/** A block of the conversation that may still change (a tool's line while it runs). */
export type Line = { setText(text: string): void };

export type Screen = {
  tui: TUI;
  editor: Editor;
  /** A block in the conversation (a prompt, a notice, a report, a tool's line). */
  add(text: string): Line;
  addMarkdown(text: string): void;
  /** A streaming answer: finished blocks are frozen (rendered once), only the tail re-renders (src/tui/stream-markdown.ts). */
  addStream(): StreamView;
  /** The activity area above the input (spinner, queued messages); empty string hides it. */
  setActivity(text: string): void;
  setStatus(text: string): void;
  /** Shows a dialog and resolves with the chosen value, or null on Esc. One dialog at a time (callers queue). */
  choose(title: string, choices: Choice[]): Promise<string | null>;
  /** A one-line text answer (e.g. what to do instead), or null on Esc. */
  askText(title: string): Promise<string | null>;
  dialogOpen(): boolean;
  /** Hands the terminal to another program (an editor) while `run` runs, then redraws everything. */
  suspend<T>(run: () => T): T;
  /** The `/` menu, read each time it opens (MCP prompts join once their server connects). */
  setCommands(items: () => Array<{ name: string; description: string; argumentHint?: string }>, cwd: string): void;
  render(): void;
  stop(): void;
};

const withBlankAfter = (lines: string[]): string[] => (lines.length && lines.at(-1)!.trim() !== "" ? [...lines, ""] : lines);

/** A piece of a streamed answer as Markdown, cut where stableCut said (inside a code fence too: fencedPiece). */
function piece(text: string, reopen: string | null, open: string | null, blockEnd: boolean): (width: number) => string[] {
  const f = fencedPiece(text, reopen, open);
  const md = new Markdown(f.source, 0, 0, markdownTheme);
  return (w) => {
    let lines = md.render(w);
    if (f.dropFirst || f.dropLast) lines = lines.slice(f.dropFirst, lines.length - f.dropLast);
    // Between blocks the whole answer has one blank line; a block rendered alone may end without it.
    return blockEnd ? withBlankAfter(lines) : lines;
  };
}

export function createScreen(terminal: Terminal, o: { renderFault?: string } = {}): Screen {
  const tui = new TUI(terminal);
  // A test seam (YOKE_TEST_RENDER_FAULT, test/e2e/tui-crash.test.ts): the render throws once any line on screen shows
  // this text, as a broken component would, so the crash path (terminal restored, transcript whole) is tested for real.
  const fault = o.renderFault;
  if (fault) {
    const render = tui.render.bind(tui);
    tui.render = (width: number) => {
      const lines = render(width);
      if (lines.some((l) => l.includes(fault))) throw new Error(`a component failed to render (test fault "${fault}")`);
      return lines;
    };
  }
  const log = createConversationView(tui);
  const activity = new Text("", 0, 0);
  const dialog = new Container();
  const editor = new Editor(tui, editorTheme, { paddingX: 0 });
  const status = new Text("", 0, 0);
  for (const c of [log, activity, dialog, editor, status] as Component[]) tui.addChild(c);
  tui.setFocus(editor);
  let open = false;

  const withDialog = <T>(build: (done: (v: T) => void) => Component, focus: (c: Component) => Component): Promise<T> =>
    new Promise<T>((resolve) => {
      open = true;
      const done = (v: T) => {
        dialog.clear();
        open = false;
        tui.setFocus(editor);
        tui.requestRender();
        resolve(v);
      };
      const c = build(done);
      dialog.addChild(c);
      tui.setFocus(focus(c));
      tui.requestRender();
    });

  const screen: Screen = {
    tui,
    editor,
    add(text) {
      const t = new Text(text, 0, 0);
      log.addChild(t);
      tui.requestRender();
      return {
        setText(next) {
          t.setText(next);
          log.changed(t);
          tui.requestRender();
        },
      };
    },
    addMarkdown(text) {
      const m = new Markdown(text, 0, 0, markdownTheme);
      log.addChild(frozen((w) => m.render(w)));
      tui.requestRender();
    },
    addStream() {
      // The tail: the answer after its last cut, re-rendered when it grows (in a code fence, without the fence's
      // opening border, which the piece before it drew). The same lines array while it does not change.
      let tail: (width: number) => string[] = () => [];
      let tailWidth = -1;
      let tailLines: string[] = [];
      const live: Component = {
        render(w) {
          if (w !== tailWidth) {
            tailLines = tail(w);
            tailWidth = w;
          }
          return tailLines;
        },
        invalidate: () => void (tailWidth = -1),
      };
      log.addChild(live);
      const parts: Component[] = [];
      let text = "";
      let done = 0;
      let reopen: string | null = null;
      const freeze = () => {
        for (let cut = stableCut(text, done, 30, reopen); cut; cut = stableCut(text, done, 30, reopen)) {
          const part = frozen(piece(text.slice(done, cut.at), reopen, cut.open, cut.blockEnd));
          log.insertBefore(part, live);
          parts.push(part);
          done = cut.at;
          reopen = cut.open;
        }
        tail = piece(text.slice(done), reopen, null, false);
        tailWidth = -1;
        log.changed(live);
        tui.requestRender();
      };
      return {
        append(delta) {
          text += delta;
          freeze();
        },
        finish(final) {
          if (final === text) return;
          // What froze must still be the answer's start; else (rare: the model's final text differs) start over.
          if (!final.startsWith(text.slice(0, done))) {
            for (const p of parts.splice(0)) log.removeChild(p);
            done = 0;
            reopen = null;
          }
          text = final;
          freeze();
        },
        text: () => text,
      };
    },
    setActivity(text) {
      activity.setText(text);
      tui.requestRender();
    },
    setStatus(text) {
      status.setText(text);
      tui.requestRender();
    },
    choose(title, choices) {
      let list!: SelectList;
      return withDialog<string | null>(
        (done) => {
          const box = new Container();
          box.addChild(new Text(title, 0, 0));
          list = new SelectList(
            choices.map((c) => ({ value: c.value, label: c.label, description: c.description })),
            Math.min(choices.length, 8),
            selectTheme,
          );
          list.onSelect = (item) => done(item.value);
          list.onCancel = () => done(null);
          box.addChild(list);
          return box;
        },
        () => list,
      );
    },
    askText(title) {
      let input!: Input;
      return withDialog<string | null>(
        (done) => {
          const box = new Container();
          box.addChild(new Text(title, 0, 0));
          input = new Input();
          input.onSubmit = (v: string) => done(v);
          input.onEscape = () => done(null);
          box.addChild(input);
          return box;
        },
        () => input,
      );
    },
    dialogOpen: () => open,
    suspend(run) {
      tui.stop();
      try {
        return run();
      } finally {
        tui.start();
        tui.requestRender(true);
      }
    },
    setCommands(items, cwd) {
      const provider = new CombinedAutocompleteProvider([], cwd, null);
      // pi-tui reads `commands` on every suggestion request: a getter keeps the menu current without a new provider.
      Object.defineProperty(provider, "commands", { get: items });
      editor.setAutocompleteProvider(provider);
    },
    render: () => tui.requestRender(),
    stop: () => tui.stop(),
  };
  return screen;
}

export { matchesKey, style };
