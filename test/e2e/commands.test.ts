// Issue 11 point 7: the subcommand tree on citty. Every command and subcommand answers --help with its
// usage; a misspelled command, subcommand or option gets a "did you mean"; the main command keeps
// Claude Code's strict flag table (contracts §4.1: `error: unknown option '--x'`), with commander's hint.
import { describe, expect, test } from "bun:test";
import { COMMANDS } from "../../src/cli/commands/index.ts";
import { isolatedEnv, runYoke } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

const run = (args: string[]) => runYoke(args, { cwd: tempDir(), env: isolatedEnv() });

/** Every command path in the tree, from the citty definitions themselves. */
async function paths(): Promise<string[][]> {
  const out: string[][] = [];
  const walk = async (cmd: any, path: string[]) => {
    out.push(path);
    const subs = typeof cmd.subCommands === "function" ? await cmd.subCommands() : cmd.subCommands;
    for (const [name, sub] of Object.entries(subs ?? {})) await walk(typeof sub === "function" ? await (sub as () => unknown)() : sub, [...path, name]);
  };
  for (const [name, c] of Object.entries(COMMANDS)) await walk(await c.load(), [name]);
  return out;
}

describe("yoke <command> --help", () => {
  test("every command and subcommand prints its usage on stdout and exits 0", async () => {
    const all = await paths();
    expect(all.map((p) => p.join(" "))).toEqual(expect.arrayContaining(["hooks list", "hooks run", "permissions explain", "sessions show", "rewind", "context"]));
    for (const p of all) {
      const r = await run([...p, "--help"]);
      expect({ p, code: r.code }).toEqual({ p, code: 0 });
      expect(r.stdout).toContain(`USAGE yoke ${p.join(" ")}`);
      // A pipe gets plain text.
      expect(r.stdout).not.toContain("\x1b[");
    }
    // One binary run per command (a dozen and more): seconds in all on a loaded machine.
  }, 60_000);

  test("`yoke --help` lists every command in the table", async () => {
    const r = await run(["--help"]);
    for (const name of Object.keys(COMMANDS)) expect(r.stdout).toContain(`  ${name}`);
  });

  test("a group without its subcommand prints usage on stderr and exits 1", async () => {
    const r = await run(["hooks"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("USAGE yoke hooks list|run");
    expect(r.stderr).toContain("which command? One of: list, run.");
  });
});

describe("did you mean", () => {
  test.each([
    [["hoks", "list"], "unknown command 'hoks' (did you mean yoke hooks?)"],
    [["sesions"], "unknown command 'sesions' (did you mean yoke sessions?)"],
    [["hooks", "lsit"], "unknown subcommand 'lsit' (did you mean yoke hooks list?)"],
    [["permissions", "explian", "Bash", "ls"], "unknown subcommand 'explian' (did you mean yoke permissions explain?)"],
    [["hooks", "list", "--jsno"], "unknown option '--jsno' (did you mean --json?)"],
    [["rewind", "x", "--dryrun"], "unknown option '--dryrun' (did you mean --dry-run?)"],
    [["sessions", "show", "x", "--plugin-dir", "p"], "yoke sessions show: unknown option '--plugin-dir'"],
  ])("%p", async (args, message) => {
    const r = await run(args);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe("");
  });

  test("the main command: Claude Code's error line, then commander's hint for a near miss only", async () => {
    const near = await run(["-p", "hi", "--modle", "x"]);
    expect(near.code).toBe(1);
    expect(near.stderr).toBe("error: unknown option '--modle'\n(Did you mean --model?)\n");
    const far = await run(["-p", "hi", "--frobnicate"]);
    expect(far.stderr).toBe("error: unknown option '--frobnicate'\n");
  });

  test("a one-word prompt with -p is a prompt, not a mistyped command", async () => {
    const r = await run(["-p", "hook"]);
    // No credentials in the isolated env: the run gets as far as asking for them, not to the command tree.
    expect(r.stderr).not.toContain("did you mean");
    expect(r.stderr).toContain("no credentials");
  });
});
