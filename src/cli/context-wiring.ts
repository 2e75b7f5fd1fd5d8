import type { SettingsLevel } from "../config/load.ts";
import { mkdirSync } from "node:fs";
import type { LoadedSettings } from "../config/load.ts";
import {
  buildSystemPrompt,
  collectGitInfo,
  createInstructionCache,
  memoryIndexFile,
  renderInstructions,
  renderNestedInstruction,
  resolveAutoMemory,
  selectRelevantMemories,
  type AutoMemory,
  type InstructionCache,
  type InstructionFile,
  type PromptSection,
} from "../context/index.ts";
import { reminder } from "../loop/run-turn.ts";
import type { TextBlock, ToolUseBlock } from "../provider/types.ts";
import type { SideQuery } from "../tool/types.ts";

export type ContextWiring = {
  memory: AutoMemory;
  /** The git branch once the startup git snapshot is in (null before, or outside a repo). */
  gitBranch(): string | null;
  /** Resolves when the startup git snapshot is in (the first request needs it anyway). Never rejects. */
  ready(): Promise<void>;
  instructions: InstructionCache;
  /** The system prompt for one request; plugin sections are asked every time. */
  system(model: string, toolNames: string[]): Promise<TextBlock[]>;
  sections(model: string, toolNames: string[]): Promise<PromptSection[]>;
  /**
   * Reports the session's instruction files as loaded (onLoaded: InstructionsLoaded) before the first prompt's
   * UserPromptSubmit, as Claude Code does (contracts §1.9); promptContext renders them later without reporting them
   * twice. A no-op once reported, after they were rendered, and in a resumed session. Never throws.
   */
  announceStartup(): void;
  /** Context added before a prompt: instruction files on the first prompt of a new session, then relevant memories. */
  promptContext(prompt: string, signal?: AbortSignal): Promise<string[]>;
  /** Lazily attached instruction files for the files the model just touched. */
  afterTools(calls: ToolUseBlock[]): string[];
  /** After compaction, mid-turn: reloads the instruction files and memory index and returns them now (rendered), instead of on the next prompt. Never throws. */
  startupContext(): string[];
  /** The instruction files of the session start, then the MEMORY.md index (layer "memory") when there is one. Never throws. */
  startupFiles(): InstructionFile[];
};

export type ContextWiringOptions = {
  cwd: string;
  /** The conversation was restored from a transcript (resume, continue, fork). */
  resumed?: boolean;
  env: Record<string, string>;
  settings: LoadedSettings;
  bare: boolean;
  customSystemPrompt?: string;
  appendSystemPrompt?: string;
  addDirs: string[];
  /** `--setting-sources`: instruction files follow it as settings do (user, project, local). */
  settingSources?: SettingsLevel[];
  pluginSections: () => PromptSection[];
  /** `--agent NAME`: that agent's prompt stands in for yoke's own sections (after plugins load). */
  agentPrompt?: () => string | undefined;
  /** The session's output style (src/extension/output-styles.ts), read per request: it is known once plugins load. */
  outputStyle?: () => { name: string; prompt: string; keepCodingInstructions: boolean } | null;
  /** Instruction files as they enter the context (InstructionsLoaded hooks). Must not throw. */
  onLoaded?: (loaded: LoadedInstruction[]) => void;
  sideQuery: SideQuery;
};

export { fileArg } from "./run-flags.ts";

/** One instruction file entering the context, in the InstructionsLoaded payload's terms (contracts §1.4). */
export type LoadedInstruction = {
  file_path: string;
  memory_type: "User" | "Project" | "Local" | "Managed";
  load_reason: "session_start" | "nested_traversal" | "path_glob_match" | "include" | "compact";
  globs?: string[];
  trigger_file_path?: string;
  parent_file_path?: string;
};

const MEMORY_TYPE = { managed: "Managed", user: "User", project: "Project", local: "Local" } as const;

function loadedOf(files: InstructionFile[], reason: LoadedInstruction["load_reason"] | null, trigger?: string): LoadedInstruction[] {
  const out: LoadedInstruction[] = [];
  for (const f of files) {
    if (f.layer === "memory" || (f.status !== "included" && f.status !== "truncated")) continue;
    const l: LoadedInstruction = { file_path: f.path, memory_type: MEMORY_TYPE[f.layer], load_reason: reason ?? f.loadReason ?? "session_start" };
    if (f.loadReason === "include" && reason !== "compact") l.load_reason = "include";
    if (f.globs) l.globs = f.globs;
    if (trigger) l.trigger_file_path = trigger;
    if (f.parent) l.parent_file_path = f.parent;
    out.push(l);
  }
  return out;
}

export function createContextWiring(o: ContextWiringOptions): ContextWiring {
  const memory = resolveAutoMemory({ cwd: o.cwd, env: o.env, settings: o.settings, bare: o.bare });
  if (memory.enabled && memory.dir) {
    try {
      mkdirSync(memory.dir, { recursive: true });
    } catch {
      /* the memory section still names the folder; tools will report the failure */
    }
  }
  const instructions = createInstructionCache({ cwd: o.cwd, env: o.env, settings: o.settings, bare: o.bare, additionalDirectories: o.addDirs, settingSources: o.settingSources });
  const git = o.bare ? Promise.resolve(null) : collectGitInfo(o.cwd);
  let branch: string | null = null;
  void git.then((g) => {
    branch = g?.branch ?? null;
    // YOKE_TIMING: when git's answers were in (the first request waits for them).
    performance.mark("yoke:git");
  });
  // A resumed conversation already carries the instruction files in its first prompt.
  let instructionsPending = !o.resumed;
  // Files already shown to the model, so relevant-memory selection does not offer them again.
  const surfaced = new Set<string>();
  const budget = { bytesUsed: 0 };
  const relevantOn = memory.enabled && !!memory.dir && o.settings.merged.relevantMemory !== false && o.env.YOKE_DISABLE_RELEVANT_MEMORY !== "1";

  const sections = async (model: string, toolNames: string[]) =>
    buildSystemPrompt({
      cwd: o.cwd,
      model,
      customSystemPrompt: o.customSystemPrompt ?? o.agentPrompt?.(),
      appendSystemPrompt: o.appendSystemPrompt,
      extraSections: o.pluginSections(),
      git: await git,
      toolNames,
      memory: memory.enabled && memory.dir ? { dir: memory.dir } : null,
      outputStyle: o.outputStyle?.() ?? null,
    });

  const startupFiles = (): InstructionFile[] => {
    const files = [...instructions.get().files];
    const mem = memory.enabled && memory.dir ? memoryIndexFile(memory.dir) : null;
    if (mem) files.push(mem);
    return files;
  };

  let loadedOnce = false;
  // The files announceStartup reported: promptContext renders exactly these, and reports them no second time.
  let announced: InstructionFile[] | null = null;
  const startup = (): string[] => {
    instructionsPending = false;
    const files = announced ?? startupFiles();
    if (!announced) o.onLoaded?.(loadedOf(files, loadedOnce ? "compact" : null));
    announced = null;
    loadedOnce = true;
    const text = renderInstructions(files);
    return text ? [text] : [];
  };

  return {
    gitBranch: () => branch,
    ready: async () => void (await git),
    memory,
    instructions,
    sections,
    startupFiles,
    async system(model, toolNames) {
      const s = await sections(model, toolNames);
      return [{ type: "text", text: s.map((x) => x.text).join("\n\n") }];
    },
    announceStartup() {
      if (!instructionsPending || announced) return;
      announced = startupFiles();
      o.onLoaded?.(loadedOf(announced, loadedOnce ? "compact" : null));
    },
    async promptContext(prompt, signal) {
      const out: string[] = [];
      if (instructionsPending) out.push(...startup());
      if (relevantOn && memory.dir) {
        const picked = await selectRelevantMemories({ dir: memory.dir, prompt, sideQuery: o.sideQuery, alreadySurfaced: surfaced, budget, signal });
        for (const m of picked) out.push(reminder(`${m.header}\n\n${m.content}`).text);
      }
      return out;
    },
    afterTools(calls) {
      const out: string[] = [];
      const set = instructions.get();
      for (const c of calls) {
        const p = (c.input.file_path ?? c.input.notebook_path) as unknown;
        if (typeof p !== "string") continue;
        surfaced.add(p);
        const attached = set.onFileRead(p);
        if (attached.length) o.onLoaded?.(loadedOf(attached, null, p));
        for (const f of attached) out.push(renderNestedInstruction(f));
      }
      return out;
    },
    startupContext() {
      instructions.invalidate();
      return startup();
    },
  };
}
