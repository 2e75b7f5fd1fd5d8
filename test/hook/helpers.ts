import { mkdirSync, writeFileSync } from "node:fs";
import type { EmitPayload } from "../../src/hook/typed.ts";
import { join } from "node:path";
import { type LoadedSettings, loadSettings } from "../../src/config/load.ts";
import { createHookBus, type HookBusOptions, type YokeHookBus } from "../../src/hook/bus.ts";
import type { HookRecord } from "../../src/hook/types.ts";
import type { HandlerResult } from "../../src/hook/events/common.ts";
import { tempDir } from "../helpers/tmp.ts";

export const tmp = (prefix = "yoke-hook-") => tempDir(prefix);

export type Env = { home: string; project: string; managed: string; yoke: string; env: Record<string, string> };

/** A fresh HOME, project and managed dir; settings files are written with `write`. */
export function makeEnv(): Env {
  const root = tmp();
  const home = join(root, "home");
  const project = join(root, "project");
  const managed = join(root, "managed");
  const yoke = join(root, "yoke");
  for (const d of [join(home, ".claude"), join(project, ".claude"), managed, yoke]) mkdirSync(d, { recursive: true });
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    YOKE_CONFIG_DIR: yoke,
    YOKE_MANAGED_DIR: managed,
  };
  return { home, project, managed, yoke, env };
}

export function writeSettings(e: Env, level: "user" | "project" | "local" | "managed", settings: unknown): string {
  const path =
    level === "user"
      ? join(e.home, ".claude", "settings.json")
      : level === "project"
        ? join(e.project, ".claude", "settings.json")
        : level === "local"
          ? join(e.project, ".claude", "settings.local.json")
          : join(e.managed, "managed-settings.json");
  writeFileSync(path, JSON.stringify(settings, null, 2));
  return path;
}

export const load = (e: Env): LoadedSettings => loadSettings({ cwd: e.project, env: e.env });

/** A bus over the env's settings files; records are collected into `records`. */
export function busFor(e: Env, extra: Partial<HookBusOptions> = {}): YokeHookBus & { records: HookRecord[] } {
  const records: HookRecord[] = [];
  const bus = createHookBus({
    settings: load(e),
    projectDir: e.project,
    cwd: () => e.project,
    env: e.env,
    sessionId: "sess-1",
    yokeDir: e.yoke,
    onRecord: (_ev, r) => records.push(r),
    ...extra,
  });
  return Object.assign(bus, { records });
}

/** One command hook config. */
export const hooks = (event: string, matcher: string | undefined, ...handlers: Record<string, unknown>[]) => ({
  hooks: { [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: handlers }] },
});
export const cmd = (command: string, more: Record<string, unknown> = {}) => ({ type: "command", command, ...more });

/** A synthetic handler result for merge tables. */
export function res(p: Partial<HandlerResult> & { output?: HandlerResult["output"] } = {}): HandlerResult {
  return {
    record: { source: "test", hookName: "X", exitCode: 0, stdout: "", stderr: "", durationMs: 0, outcome: "success" },
    ...p,
  };
}

export const prePayload = (e: Env, tool = "Bash", input: Record<string, unknown> = { command: "ls" }): EmitPayload<"PreToolUse"> => ({
  session_id: "sess-1",
  transcript_path: join(e.yoke, "t.jsonl"),
  cwd: e.project,
  permission_mode: "default",
  hook_event_name: "PreToolUse",
  tool_name: tool,
  tool_input: input,
  tool_use_id: "toolu_1",
});
