/**
 * What the interactive session writes where it differs from `-p` (review item 2), matched to Claude Code 2.1.332 run
 * in tmux against the fake API (observed in 2.1.332, interactive):
 * - every transcript line carries `entrypoint: "cli"` (`-p` writes "sdk-cli"; a caller's CLAUDE_CODE_ENTRYPOINT,
 *   such as an IDE extension's "claude-vscode", wins in both), subagent transcripts too, and hooks and tools see
 *   CLAUDE_CODE_ENTRYPOINT=cli (contracts §1.8);
 * - a prompt typed at an idle input writes no `queue-operation` lines (`-p` writes enqueue + dequeue for each); a
 *   message typed while the agent works writes `enqueue` (with its text) and later `dequeue`;
 * - `last-prompt` follows every turn, as in `-p`;
 * - `--continue` at the terminal skips `-p` and SDK sessions (contracts §5.3); `-p --continue` takes any.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TRUST_WORKSPACE, runYoke } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { readLines, send, transcriptFiles, transcriptLines, tuiSuite } from "./tui-helpers.ts";

const session = tuiSuite();
const say = (text: string) => ({ content: [{ type: "text" as const, text }] });
const entrypoints = (lines: any[]) => [...new Set(lines.filter((l) => "entrypoint" in l).map((l) => l.entrypoint))];

describe("entrypoint", () => {
  test('interactive: every line "cli", subagent lines too; hooks and Bash see CLAUDE_CODE_ENTRYPOINT=cli', async () => {
    const cwd = tempDir("yoke-tui-ep-");
    writeTree(cwd, {
      ".claude/settings.json": JSON.stringify({
        hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: 'printf %s "$CLAUDE_CODE_ENTRYPOINT" > hook-saw.txt' }] }] },
      }),
    });
    const { env, term } = await session(
      [
        { content: [{ type: "tool_use", name: "Bash", input: { command: 'printf %s "$CLAUDE_CODE_ENTRYPOINT" > bash-saw.txt' } }] },
        { content: [{ type: "tool_use", name: "Agent", input: { subagent_type: "general-purpose", description: "look", prompt: "look around" } }] },
        say("sub done"),
        say("all done"),
      ],
      { cwd, env: TRUST_WORKSPACE, argv: ["--allowedTools", "Bash"] },
    );
    send(term, "go");
    await term.waitFor("all done");
    send(term, "/exit");
    expect(await term.waitExit()).toBe(0);
    expect(readFileSync(join(cwd, "hook-saw.txt"), "utf8")).toBe("cli");
    expect(readFileSync(join(cwd, "bash-saw.txt"), "utf8")).toBe("cli");
    const lines = transcriptLines(env);
    expect(lines.filter((l) => l.type === "user" || l.type === "assistant").length).toBeGreaterThan(3);
    expect(entrypoints(lines)).toEqual(["cli"]);
    const root = join(env.YOKE_CONFIG_DIR!, "projects");
    const subs = readdirSync(root, { recursive: true }).map(String).filter((f) => f.includes("subagents") && f.endsWith(".jsonl"));
    expect(subs).toHaveLength(1);
    expect(entrypoints(readLines(join(root, subs[0]!)))).toEqual(["cli"]);
  }, 60_000);

  test('-p keeps "sdk-cli"; a caller\'s CLAUDE_CODE_ENTRYPOINT (an IDE\'s claude-vscode) wins at the terminal and in -p', async () => {
    const { fake, env, cwd, term } = await session([say("from the terminal")], { env: { CLAUDE_CODE_ENTRYPOINT: "claude-vscode" } });
    send(term, "hi");
    await term.waitFor("from the terminal");
    send(term, "/exit");
    expect(await term.waitExit()).toBe(0);
    expect(entrypoints(transcriptLines(env))).toEqual(["claude-vscode"]);

    fake.push(say("a"), say("b"));
    const { CLAUDE_CODE_ENTRYPOINT: _, ...rest } = env;
    const plain = { ...rest, YOKE_CONFIG_DIR: join(tempDir("yoke-cfg-"), ".yoke") };
    expect((await runYoke(["-p", "hi"], { env: { ...plain, CLAUDE_CODE_ENTRYPOINT: undefined }, cwd })).code).toBe(0);
    expect(entrypoints(readLines(transcriptFiles(plain)[0]!))).toEqual(["sdk-cli"]);
    const sdk = { ...env, CLAUDE_CODE_ENTRYPOINT: "claude-vscode", YOKE_CONFIG_DIR: join(tempDir("yoke-cfg-"), ".yoke") };
    expect((await runYoke(["-p", "hi"], { env: sdk, cwd })).code).toBe(0);
    expect(entrypoints(readLines(transcriptFiles(sdk)[0]!))).toEqual(["claude-vscode"]);
  }, 60_000);
});

describe("queue-operation and last-prompt lines", () => {
  test("an idle prompt writes none; a message typed while the agent works writes enqueue (its text) then dequeue; last-prompt after each turn", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    const { env, term } = await session([
      async () => {
        await held;
        return say("first answer");
      },
      say("second answer"),
    ]);
    send(term, "first question");
    await term.waitFor("Working…");
    send(term, "typed meanwhile");
    await term.waitFor("queued: typed meanwhile");
    release();
    await term.waitFor("second answer");
    send(term, "/exit");
    expect(await term.waitExit()).toBe(0);
    const lines = transcriptLines(env);
    const ops = lines.filter((l) => l.type === "queue-operation").map((l) => [l.operation, l.content]);
    expect(ops).toEqual([
      ["enqueue", "typed meanwhile"],
      ["dequeue", undefined],
    ]);
    const enqueueAt = lines.findIndex((l) => l.type === "queue-operation");
    const firstPromptAt = lines.findIndex((l) => l.type === "user" && JSON.stringify(l.message.content).includes("first question"));
    expect(firstPromptAt).toBeLessThan(enqueueAt);
    expect(lines.filter((l) => l.type === "last-prompt").map((l) => l.lastPrompt)).toEqual(["first question", "typed meanwhile"]);
    for (const l of lines.filter((x) => x.type === "last-prompt")) expect(lines.some((x) => x.uuid === l.leafUuid)).toBe(true);
  }, 60_000);
});

describe("--continue at the terminal", () => {
  test("skips a newer -p session and goes on with the latest interactive one; -p --continue takes the newest of any", async () => {
    const first = await session([say("terminal answer")]);
    send(first.term, "the terminal session");
    await first.term.waitFor("terminal answer");
    send(first.term, "/exit");
    expect(await first.term.waitExit()).toBe(0);
    const { env, cwd, fake } = first;
    fake.push(say("print answer"));
    expect((await runYoke(["-p", "the print session"], { env, cwd })).code).toBe(0);
    expect(transcriptFiles(env)).toHaveLength(2);

    // Headless, --continue takes the newest session of any kind.
    fake.push(say("print continued"));
    const r = await runYoke(["-p", "--continue", "and now?"], { env, cwd });
    expect(r.stdout.trim()).toBe("print continued");
    expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain("the print session");

    fake.push(say("continued"));
    const again = await session([], { cwd, env, argv: ["--continue"] });
    send(again.term, "where were we?");
    await again.term.waitFor("continued");
    const sent = JSON.stringify(fake.requests.at(-1)!.body.messages);
    expect(sent).toContain("the terminal session");
    expect(sent).not.toContain("the print session");
    send(again.term, "/exit");
    expect(await again.term.waitExit()).toBe(0);
    expect(transcriptFiles(env)).toHaveLength(2);
  }, 90_000);
});
