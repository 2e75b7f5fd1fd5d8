// Shared by the memory-plugin e2e files: reading what the fake API saw and what yoke wrote.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { LoggedRequest } from "../helpers/fake-anthropic.ts";

export const sanitize = (p: string) => p.replace(/[^a-zA-Z0-9]/g, "-");
export const memDirOf = (env: Record<string, string>, cwd: string) => join(env.YOKE_CONFIG_DIR!, "projects", sanitize(cwd), "memory");
export const systemText = (req: LoggedRequest): string => (req.body.system ?? []).map((b: any) => b.text).join("\n");
export const userText = (msg: any): string =>
  typeof msg.content === "string" ? msg.content : msg.content.map((b: any) => b.text ?? JSON.stringify(b.content ?? "")).join("\n");
export const jsonLines = (stdout: string) => stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));

/** The main (non-sidechain) transcript lines of the one session under cwd's project folder. */
export function transcript(env: Record<string, string>, cwd: string): any[] {
  const dir = join(env.YOKE_CONFIG_DIR!, "projects", sanitize(cwd));
  const [file] = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
  return readFileSync(join(dir, file!), "utf8").trim().split("\n").map((l) => JSON.parse(l));
}
