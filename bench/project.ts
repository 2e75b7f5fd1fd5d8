/**
 * The configured project the start-up bench runs in (issue 21 point 1): what a real repository carries, so the
 * figures include the work of reading it. A git repository with one commit, a CLAUDE.md, three command hooks
 * (SessionStart, UserPromptSubmit, PreToolUse), two skills, one stdio MCP server (.mcp.json, approved in
 * settings.local.json) and two plugins (--plugin-dir, published Claude Code plugins from test/fixtures). Both CLIs get the
 * same files and flags; `configuredProblem` checks that each really saw them in its first request.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { repoRoot } from "../test/helpers/binary.ts";

export type ProjectKind = "bare" | "configured";

/** Text the first request must carry when the project's files were read. */
export const CLAUDE_MD_MARK = "bench-claude-md: tabs, never spaces";
const SKILL = (n: number) => `bench-skill-${n}`;
// A skill plugin and a plugin of commands and agents; none starts an MCP server of its own (no network here).
const PLUGINS = ["frontend-design", "feature-dev"];

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};

/** Writes the configured project's files into cwd (an empty folder) and commits them. */
export function writeConfiguredProject(cwd: string): void {
  write(join(cwd, "CLAUDE.md"), `# Project notes\n\n- ${CLAUDE_MD_MARK}.\n- Run the tests before a commit.\n`);
  write(join(cwd, "src", "app.ts"), "export const answer = 42;\n");
  for (const n of [1, 2])
    write(
      join(cwd, ".claude", "skills", SKILL(n), "SKILL.md"),
      `---\nname: ${SKILL(n)}\ndescription: Checks family ${n} of the project's conventions before a change\n---\nRead the code, then apply the conventions.\n`,
    );
  // A hook is a process per event: `exit 0` measures the harness's cost of running one, not a script's.
  const hook = (matcher?: string) => [{ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command: "exit 0" }] }];
  write(
    join(cwd, ".claude", "settings.json"),
    JSON.stringify(
      {
        hooks: { SessionStart: hook(), UserPromptSubmit: hook(), PreToolUse: hook("Write|Bash|Read") },
      },
      null,
      2,
    ),
  );
  // Approving the project's MCP servers is a local choice, never the shared project file's (contracts: .mcp.json).
  write(join(cwd, ".claude", "settings.local.json"), JSON.stringify({ enableAllProjectMcpServers: true }, null, 2));
  const tiny = join(repoRoot(), "test", "fixtures", "mcp", "tiny-server.mjs");
  write(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { tiny: { command: "node", args: [tiny, "ok"] } } }, null, 2));
  const git = (...a: string[]) => execFileSync("git", a, { cwd, stdio: "ignore", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" } });
  git("init", "-q", "-b", "main");
  git("-c", "user.email=bench@example.com", "-c", "user.name=bench", "add", "-A");
  git("-c", "user.email=bench@example.com", "-c", "user.name=bench", "commit", "-qm", "first");
}

/** Flags both CLIs get in the configured project (the plugins). */
export const configuredArgs = (): string[] =>
  PLUGINS.flatMap((p) => ["--plugin-dir", join(repoRoot(), "test", "fixtures", "claude-plugins", p)]);

/** Why a first request shows the configured project was not read, or null when it was. */
export function configuredProblem(body: unknown, opts: { mcp: boolean }): string | null {
  const text = JSON.stringify(body ?? {});
  const tools: string[] = ((body as { tools?: Array<{ name?: string }> })?.tools ?? []).map((t) => String(t.name));
  if (!text.includes(CLAUDE_MD_MARK)) return "the first request lacks the CLAUDE.md text";
  if (!text.includes(SKILL(1))) return `the first request does not list the skill ${SKILL(1)}`;
  if (!text.includes("frontend-design:")) return "the first request does not list the frontend-design plugin's skill";
  // Offered in `tools`, or named in a deferred-tool listing. Not asked of Claude Code 2.1.332: its first request
  // leaves before its MCP servers are connected (their tools come later, behind ToolSearch), observed in 2.1.332.
  if (opts.mcp && !tools.some((t) => t.startsWith("mcp__tiny__")) && !text.includes("mcp__tiny__add")) return `the first request neither offers nor lists a tool of the MCP server tiny (tools: ${tools.join(", ")})`;
  return null;
}
