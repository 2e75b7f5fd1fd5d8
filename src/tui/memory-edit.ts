import { runOnTerminal } from "../util/subprocess.ts";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Runtime } from "../cli/compose.ts";
import { claudeUserDir } from "../config/paths.ts";
import type { Screen } from "./screen.ts";
import { style } from "./theme.ts";

/**
 * `/memory`: pick the project CLAUDE.md, the user CLAUDE.md or auto memory's MEMORY.md and open it in `$VISUAL` /
 * `$EDITOR` (else `vi`), the terminal handed over while it runs. A missing file is created empty first. Never throws:
 * an editor that cannot start is a line on the screen. Edits apply to the next session's instructions.
 */
export async function editMemory(rt: Runtime, screen: Screen): Promise<void> {
  const choices = [
    { value: join(rt.cwd, "CLAUDE.md"), label: "Project memory", description: "CLAUDE.md in this folder (shared with the team)" },
    { value: join(claudeUserDir(rt.env), "CLAUDE.md"), label: "User memory", description: "your CLAUDE.md for every project" },
    ...(rt.context.memory.enabled && rt.context.memory.dir ? [{ value: join(rt.context.memory.dir, "MEMORY.md"), label: "Auto memory", description: "MEMORY.md, what yoke remembers here" }] : []),
  ];
  const file = await screen.choose(style.bold("Open which memory file?"), choices.map((c) => ({ ...c, description: `${c.description} · ${c.value}` })));
  if (file === null) return;
  const editor = rt.env.VISUAL || rt.env.EDITOR || "vi";
  try {
    if (!existsSync(file)) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, "");
    }
  } catch (e) {
    screen.add(style.red(`  cannot create ${file}: ${(e as Error).message}`));
    return;
  }
  const r = screen.suspend(() => runOnTerminal(["sh", "-c", `${editor} "$1"`, "sh", file], { cwd: rt.cwd, env: rt.env }));
  if (r.error || r.status !== 0) screen.add(style.red(`  ${editor} ${file}: ${r.error?.message ?? `exit ${r.status}`}`));
  else screen.add(style.gray(`  Saved ${file}; it applies from the next session on.`));
}
