import type { Runtime } from "../cli/compose.ts";
import { retryNotice } from "../cli/render.ts";
import type { LoopEvent, TurnResult } from "../loop/events.ts";
import { askPermissionVia } from "../permission/index.ts";
import type { PermissionMode } from "../permission/types.ts";
import { resolveModel } from "../provider/models.ts";
import type { AssistantMessage } from "../provider/types.ts";
import type { Question } from "../tool/builtin/ask-user-question.ts";
import { createDialogs } from "./dialogs.ts";
import type { Line, Screen, StreamView } from "./screen.ts";
import { BUILTIN_COMMANDS, helpText, menuItems, parseSlash, type ExternalCommand, type SlashContext } from "./slash-commands.ts";
import { style } from "./theme.ts";
import { diffLines, keyArgument, oneLine, resultPatch, toolLine } from "./tool-lines.ts";
import { endSession, promptRun, startSession } from "./turns.ts";
import { createStatusBar } from "./status-bar.ts";
import { attachFiles, mentionedFiles, runShellLine } from "./prompt-extras.ts";
import { writeLastPrompt, writeQueueOperation } from "../session/prompt-lines.ts";

const now = () => new Date();

/**
 * The interactive session's behaviour, on a composed Runtime and a Screen: prompts run one at a time through the
 * same turn path as `-p` (src/tui/turns.ts); the loop's events are rendered; Esc aborts the running turn; lines
 * typed meanwhile are queued and reach the model after the next tool batch (or as the next prompt); Shift+Tab
 * cycles the permission mode; `/` lines run built-in commands. Never throws: failures become lines on screen.
 */
export type ControllerOptions = {
  rt: Runtime;
  screen: Screen;
  /** Modes Shift+Tab cycles through (bypassPermissions only when the session started with it). */
  modes: PermissionMode[];
  /** Custom commands and skills (issue 14), listed in the `/` menu and /help; the model path expands them. */
  externalCommands: () => ExternalCommand[];
  slashEnabled: boolean;
  /** Starts a fresh session (/clear) or another one (/resume): the caller composes it and hands it back. */
  replaceRuntime(kind: "clear" | "resume"): Promise<Runtime | null>;
  addHistory(text: string): void;
};

type ToolRow = { text: Line; name: string; arg: string; started: number; tail?: string };

export function createController(o: ControllerOptions) {
  let rt = o.rt;
  const { screen } = o;
  let running: AbortController | null = null;
  let shell: AbortController | null = null;
  const queue: string[] = [];
  /** Output of `!cmd` lines, sent with the next prompt. */
  const shellBlocks: string[] = [];
  const denials: Array<{ tool: string; reason: string }> = [];
  let tools = new Map<string, ToolRow>();
  /** Finished tool lines with their output, for Ctrl+O (expand: the output's last lines under each). */
  const finished: Array<{ text: Line; line: string; output: string }> = [];
  let expanded = false;
  const showRow = (r: { text: Line; line: string; output: string }) => {
    const tail = r.output.trimEnd().split("\n").slice(-20);
    r.text.setText(expanded && r.output.trim() ? `${r.line}\n${tail.map((l) => style.gray(`    ${oneLine(l, 300)}`)).join("\n")}` : r.line);
  };
  let streaming: StreamView | null = null;
  /** The line as typed for the running prompt (the loop sees it expanded when it is a command). */
  let typedPrompt: string | null = null;
  let turnStarted = 0;
  let turnTokens = 0;
  let contextTokens = 0;
  let spinner: ReturnType<typeof setInterval> | null = null;
  let frame = 0;
  let exitResolve: (code: number) => void = () => {};
  const exited = new Promise<number>((r) => (exitResolve = r));
  let exiting = false;

  const dialogs = createDialogs(screen, {
    cwd: () => rt.session.cwd,
    // "Yes, don't ask again": the rule applies for the rest of this session too, not only after a restart.
    onRule: (rule) => {
      rt.permissions.addRules("allow", [rule]);
      screen.add(style.gray(`  Rule ${rule} saved to .claude/settings.local.json`));
    },
  });

  const wire = (r: Runtime) => {
    const viaPrompter = askPermissionVia(dialogs.prompter, {
      cwd: () => r.session.cwd,
      projectDir: r.cwd,
      onSaveError: (m) => screen.add(style.red(`  ${m}`)),
    });
    // AskUserQuestion's `ask` is answered by the questions themselves, as Claude Code's permission UI does: the
    // answers go back in the input (`answers`), the same way a `-p --permission-prompt-tool stdio` host sends them.
    r.deps.askPermission = async (req) => {
      if (req.toolName !== "AskUserQuestion" || !Array.isArray(req.input.questions)) return viaPrompter(req);
      const answers = await dialogs.questions.askQuestions(req.input.questions as Question[], running?.signal ?? new AbortController().signal);
      if (!answers) return { allow: false, feedback: "the user dismissed the questions without answering; go on with your best judgement or ask in plain text" };
      return { allow: true, input: { ...req.input, answers } };
    };
    r.session.prompter = dialogs.questions;
    // A plan ends the turn whenever the session is in plan mode now (Shift+Tab may have put it there).
    r.main.takePlan = () => {
      const plan = r.session.presentedPlan;
      r.session.presentedPlan = undefined;
      return r.permissions.mode === "plan" ? plan : undefined;
    };
    // Messages typed while the agent works reach it after the next tool batch (Claude Code's queued correction).
    const afterTools = r.main.afterTools;
    r.main.afterTools = async (calls) => {
      const out = (await afterTools?.(calls)) ?? [];
      if (!queue.length) return out;
      const sent = queue.splice(0);
      for (const q of sent) {
        writeQueueOperation(r.transcript, "dequeue", now);
        screen.add(`${style.bold("›")} ${q}`);
      }
      updateActivity();
      return [...out, ...sent.map((q) => `The user sent this message while you were working; take it into account now:\n${q}`)];
    };
    // `!cmd` output and `@path` files join the prompt as context blocks (src/tui/prompt-extras.ts).
    const promptContext = r.main.promptContext;
    r.main.promptContext = async (prompt, signal) => {
      const out = (await promptContext?.(prompt, signal)) ?? [];
      // Only what the person typed: a custom command's own `@file` lines are attached by its expansion (issue 14).
      const typed = typedPrompt ?? prompt;
      typedPrompt = null;
      const files = attachFiles(mentionedFiles(typed, r.session.cwd), r.session.cwd, r.permissions);
      for (const n of files.notes) screen.add(style.gray(`  ${n}`));
      return [...out, ...shellBlocks.splice(0), ...files.blocks];
    };
    r.outbox.setSink((ev) => render(ev));
    // Bash output while it runs: the last lines under its tool line, redrawn at most every 100 ms.
    const decoder = new TextDecoder();
    const dirty = new Map<string, ToolRow>();
    let flush: ReturnType<typeof setTimeout> | null = null;
    r.setToolProgress((id, chunk) => {
      const row = tools.get(id);
      if (!row) return;
      row.tail = ((row.tail ?? "") + decoder.decode(chunk, { stream: true })).slice(-4000);
      dirty.set(id, row);
      flush ??= setTimeout(() => {
        flush = null;
        for (const [rowId, d] of dirty) {
          // A row that finished meanwhile keeps its final line.
          if (tools.get(rowId) !== d) continue;
          const lines = d.tail!.trimEnd().split("\n").slice(-5).map((l) => style.gray(`    ${oneLine(l, 300)}`));
          d.text.setText([toolLine(d.name, d.arg, { state: "running" }), ...lines].join("\n"));
        }
        dirty.clear();
        screen.render();
      }, 100);
    });
    status.attach(r);
    screen.setCommands(() => menuItems(BUILTIN_COMMANDS, o.externalCommands()), r.cwd);
  };

  const status = createStatusBar(screen, { rt: () => rt, contextTokens: () => contextTokens });
  const updateStatus = () => status.update();

  const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
  const updateActivity = () => {
    const lines: string[] = [];
    if (running) {
      const s = Math.floor((Date.now() - turnStarted) / 1000);
      lines.push(`${style.cyan(FRAMES[frame % FRAMES.length]!)} Working… ${style.gray(`(${s}s · ↓ ${turnTokens.toLocaleString("en-US")} tokens · esc to interrupt)`)}`);
    }
    for (const q of queue) lines.push(style.gray(`  queued: ${q.split("\n")[0]}`));
    screen.setActivity(lines.join("\n"));
  };

  const finishStreaming = (message?: AssistantMessage) => {
    const text = message?.content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text).join("") ?? "";
    if (streaming) {
      if (message && text) streaming.finish(text);
    } else if (text.trim()) screen.addStream().finish(text);
    if (streaming || text.trim()) screen.add("");
    streaming = null;
  };

  function render(ev: LoopEvent): void {
    switch (ev.type) {
      case "stream_event": {
        const e = ev.event as { type?: string; delta?: { type?: string; text?: string }; usage?: { output_tokens?: number } };
        if (e.type === "content_block_delta" && e.delta?.type === "text_delta" && e.delta.text) {
          streaming ??= screen.addStream();
          streaming.append(e.delta.text);
          turnTokens += Math.ceil(e.delta.text.length / 4);
        }
        return;
      }
      case "assistant": {
        finishStreaming(ev.message);
        const u = ev.message.usage;
        contextTokens = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens + u.output_tokens;
        if (ev.apiError) screen.add(style.red(`  API error${ev.apiError.status ? ` ${ev.apiError.status}` : ""} (${ev.apiError.kind})`));
        updateStatus();
        return;
      }
      case "tool_start": {
        finishStreaming();
        const arg = keyArgument(ev.name, ev.input, rt.session.cwd);
        const text = screen.add(toolLine(ev.name, arg, { state: "running" }));
        tools.set(ev.toolUseId, { text, name: ev.name, arg, started: Date.now() });
        return;
      }
      case "permission_denied": {
        const row = tools.get(ev.denial.tool_use_id);
        denials.push({ tool: ev.denial.tool_name, reason: ev.reason });
        if (row) row.text.setText(toolLine(row.name, row.arg, { state: "denied", reason: ev.reason }));
        tools.delete(ev.denial.tool_use_id);
        screen.render();
        return;
      }
      case "user": {
        if (!Array.isArray(ev.message.content)) return;
        for (const b of ev.message.content) {
          if (b.type !== "tool_result") continue;
          const row = tools.get(b.tool_use_id);
          if (!row) continue;
          tools.delete(b.tool_use_id);
          const ms = Date.now() - row.started;
          const content = typeof b.content === "string" ? b.content : b.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
          let line = b.is_error ? toolLine(row.name, row.arg, { state: "error", ms, message: content }) : toolLine(row.name, row.arg, { state: "done", ms });
          const patch = b.is_error ? undefined : resultPatch(ev.toolUseResult);
          if (patch) line += `\n${diffLines(patch).map((l) => `    ${l}`).join("\n")}`;
          const done = { text: row.text, line, output: content };
          finished.push(done);
          if (finished.length > 500) finished.shift();
          showRow(done);
        }
        screen.render();
        return;
      }
      case "api_retry":
        screen.add(style.yellow(`  ${retryNotice(ev.info, ev.cause).replace(/^yoke: /, "")}`));
        return;
      case "system": {
        const content = typeof ev.data.content === "string" ? ev.data.content : undefined;
        // Hook failures are already a line: compose reports them on stderr as they finish, which the screen shows.
        if (ev.subtype === "informational" && content && !/^\S+ hook error: /.test(content)) screen.add(style.gray(`  ${content}`));
        else if (ev.subtype === "compact_boundary") screen.add(style.gray("  Conversation compacted."));
        // Plugin notices (host.notify), e.g. memory extraction's "Memory updated: …".
        else if (ev.subtype === "notification" && typeof ev.data.message === "string") screen.add(style.gray(`  ${ev.data.message}`));
        else if (ev.subtype === "status" && ev.data.permissionMode) updateStatus();
        return;
      }
      case "subagent":
      case "result":
        return;
    }
  }

  async function runPrompt(text: string, opts: { compact?: boolean } = {}): Promise<void> {
    running = new AbortController();
    turnStarted = Date.now();
    turnTokens = 0;
    tools = new Map();
    frame = 0;
    spinner = setInterval(() => {
      frame++;
      updateActivity();
    }, 120);
    updateActivity();
    let result: TurnResult | null = null;
    typedPrompt = text;
    try {
      const gen = await promptRun(rt, text, running.signal, o.slashEnabled || !!opts.compact);
      for (;;) {
        const step = await gen.next();
        if (step.done) {
          result = step.value;
          break;
        }
        render(step.value);
      }
    } catch (e) {
      screen.add(style.red(`  yoke: ${(e as Error).message}`));
    } finally {
      finishStreaming();
      if (spinner) clearInterval(spinner);
      spinner = null;
      const aborted = running.signal.aborted;
      running = null;
      for (const row of tools.values()) row.text.setText(toolLine(row.name, row.arg, { state: "error", ms: Date.now() - row.started, message: "interrupted" }));
      tools.clear();
      if (aborted) screen.add(style.yellow("  Interrupted · tell yoke what to do instead"));
      updateActivity();
      updateStatus();
    }
    writeLastPrompt(rt.transcript, text);
    if (result) await afterTurn(result, running === null);
    if (queue.length && !exiting) {
      const taken = queue.splice(0);
      for (const _ of taken) writeQueueOperation(rt.transcript, "dequeue", now);
      const next = taken.join("\n\n");
      screen.add(`${style.bold("›")} ${next}`);
      void runPrompt(next);
    }
  }

  async function afterTurn(result: TurnResult, _idle: boolean): Promise<void> {
    if (result.terminalReason === "plan_ready") {
      const mode = await dialogs.plan(result.result, o.modes.filter((m) => m !== "plan"));
      if (mode) {
        setMode(mode);
        queue.unshift("The plan is approved. Go ahead with it.");
      } else screen.add(style.gray("  Plan not approved: say what to change."));
      return;
    }
    if (result.isError && !result.terminalReason.startsWith("aborted")) {
      const msg = result.errors.join("\n") || result.result;
      if (msg) screen.add(style.red(`  ${msg}`));
    }
  }

  function setMode(mode: PermissionMode) {
    rt.permissions.setMode(mode);
    rt.permissionMode = mode;
    updateStatus();
  }

  const ctx: SlashContext = {
    show: (text) => screen.add(text),
    send: (text) => submitPrompt(text),
    compact: (focus) => {
      if (running) return void screen.add(style.yellow("  /compact waits until the current turn ends; press Esc to stop it."));
      void runPrompt(`/compact${focus ? ` ${focus}` : ""}`, { compact: true });
    },
    clear: async () => {
      if (running) running.abort();
      const next = await o.replaceRuntime("clear");
      if (next) adopt(next, "Started a new session.");
    },
    exit: () => void exit(0),
    setModel: (name) => {
      const m = resolveModel(name);
      rt.models.set(m);
      updateStatus();
      return m;
    },
    model: () => rt.models.current(),
    setEffort: (level) => {
      rt.session.effort = level;
      return level;
    },
    report: async (kind) => {
      const r = await import("./reports.ts");
      switch (kind) {
        case "context":
          return r.contextText(rt, contextTokens);
        case "cost":
          return r.costText(rt);
        case "status":
          return r.statusText(rt);
        case "permissions":
          return r.permissionsText(rt, denials);
        case "hooks":
          return r.hooksText(rt);
        case "agents":
          return r.agentsText(rt);
        case "plugins":
          return r.pluginsText(rt);
        case "memory":
          return r.memoryText(rt);
      }
    },
    resume: async () => {
      if (running) return void screen.add(style.yellow("  /resume waits until the current turn ends."));
      const next = await o.replaceRuntime("resume");
      if (next) adopt(next, `Resumed session ${next.sessionId}.`);
    },
    editMemory: async () => {
      const { editMemory } = await import("./memory-edit.ts");
      await editMemory(rt, screen);
    },
    rewind: async () => {
      if (running) return void screen.add(style.yellow("  Rewind waits until the current turn ends; press Esc to stop it."));
      const { rewindFromScreen } = await import("./rewind.ts");
      const text = await rewindFromScreen(rt, screen);
      if (text !== null && !screen.editor.getText()) screen.editor.setText(text);
      contextTokens = 0;
      updateStatus();
    },
  };

  function adopt(next: Runtime, note: string) {
    rt = next;
    contextTokens = 0;
    wire(rt);
    screen.add(style.gray(`  ${note} (${rt.sessionId})`));
    updateStatus();
  }

  function submitPrompt(text: string) {
    if (running) {
      queue.push(text);
      writeQueueOperation(rt.transcript, "enqueue", now, text);
      updateActivity();
      return;
    }
    screen.add(`${style.bold("›")} ${text}`);
    void runPrompt(text);
  }

  async function submit(raw: string): Promise<void> {
    const text = raw.trimEnd();
    if (!text.trim()) return;
    o.addHistory(text);
    screen.editor.addToHistory(text);
    if (/^![^\s]/.test(text) || /^! \S/.test(text)) {
      const cmd = text.slice(1).trim();
      screen.add(`${style.bold("!")} ${cmd}`);
      shell = new AbortController();
      const r = await runShellLine(cmd, rt.session.cwd, rt.env, shell.signal);
      shell = null;
      screen.add(style.gray(r.shown.split("\n").slice(-30).map((l) => `  ${l}`).join("\n")));
      shellBlocks.push(r.block);
      return;
    }
    const parsed = o.slashEnabled ? parseSlash(text, BUILTIN_COMMANDS, o.externalCommands()) : { kind: "prompt" as const };
    if (parsed.kind === "builtin") {
      screen.add(style.gray(`› ${text}`));
      try {
        if (parsed.command.name === "help") screen.add(helpText(BUILTIN_COMMANDS, o.externalCommands()));
        else await parsed.command.run(parsed.args, ctx);
      } catch (e) {
        screen.add(style.red(`  /${parsed.command.name} failed: ${(e as Error).message}`));
      }
      return;
    }
    // A skill or command by one of its other names (`/frontend:component`) goes to the model path like its name.
    if (parsed.kind === "unknown" && !rt.extensions.parse(text)) {
      screen.add(style.gray(`› ${text}`));
      screen.add(style.yellow(`  Unknown command /${parsed.name}.${parsed.suggestion ? ` Did you mean /${parsed.suggestion}?` : ""} /help lists the commands.`));
      return;
    }
    submitPrompt(text);
  }

  /** Esc: stops the running turn (true), or does nothing (false). */
  function interrupt(): boolean {
    if (shell) {
      shell.abort();
      return true;
    }
    if (!running) return false;
    running.abort();
    return true;
  }

  function cycleMode() {
    const i = o.modes.indexOf(rt.permissions.mode);
    setMode(o.modes[(i + 1) % o.modes.length]!);
  }

  async function exit(code: number, reason: "prompt_input_exit" | "other" = "prompt_input_exit"): Promise<void> {
    if (exiting) return;
    exiting = true;
    running?.abort();
    status.stop();
    try {
      await endSession(rt, reason);
    } finally {
      exitResolve(code);
    }
  }

  return {
    async start(initialPrompt: string | undefined) {
      wire(rt);
      updateStatus();
      updateActivity();
      const ctrl = new AbortController();
      for (const m of await startSession(rt, ctrl.signal)) screen.add(style.gray(`  ${m}`));
      if (initialPrompt) submitPrompt(initialPrompt);
    },
    submit,
    rewind: () => ctx.rewind(),
    /** Ctrl+O: shows or hides the output under every finished tool line. */
    toggleExpanded() {
      expanded = !expanded;
      for (const r of finished) showRow(r);
      screen.render();
    },
    interrupt,
    cycleMode,
    exit,
    exited,
    isRunning: () => running !== null,
    runtime: () => rt,
  };
}

export type Controller = ReturnType<typeof createController>;
