// Issue 21 point 3: each way in loads only what it uses. A source run with test/helpers/module-log.ts preloaded
// lists every module it loaded; the compiled binary splits its chunks along the same dynamic imports (build.ts),
// so what a source run does not load, the binary does not read either.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { COMMANDS } from "../../src/cli/commands/index.ts";
import { isolatedEnv, repoRoot } from "../helpers/binary.ts";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { tempDir } from "../helpers/tmp.ts";

// Source runs transpile on the fly: under load one takes seconds.
setDefaultTimeout(300_000);

const root = repoRoot();
let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic();
});

/** The modules a source run of `yoke ...args` loaded, relative to the repository (node_modules/… for packages). */
async function modulesOf(args: string[], extraEnv: Record<string, string> = {}, prepare?: (cwd: string) => void, entry = "src/main.ts"): Promise<string[]> {
  const cwd = tempDir("yoke-modules-");
  prepare?.(cwd);
  const log = join(tempDir("yoke-modules-log-"), "modules.json");
  const env = isolatedEnv({ ...fakeApiEnv(fake), ...extraEnv, YOKE_MODULE_LOG: log });
  const p = Bun.spawn([process.execPath, "--preload", join(root, "test/helpers/module-log.ts"), join(root, entry), ...args], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  const code = await p.exited;
  if (code !== 0) throw new Error(`yoke ${args.join(" ")} exited ${code}: ${out}${err}`);
  return (JSON.parse(readFileSync(log, "utf8")) as string[]).map((m) => m.slice(root.length + 1));
}

const pkg = (m: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(m)?.[1];
/** Modules of these packages or src folders among `mods`. */
const of = (mods: string[], ...what: string[]) => mods.filter((m) => what.some((w) => (w.startsWith("src/") ? m.startsWith(w) : pkg(m) === w)));

// What no start loads unless it is used: the terminal UI, the MCP client, the HTML converter of WebFetch.
const HEAVY_UNUSED = ["src/tui/", "@mariozechner/pi-tui", "@modelcontextprotocol/sdk", "node-html-markdown", "node-html-parser", "marked"];

/**
 * A module-level import (ESM or CommonJS) of a Node built-in that is slow to load; a require inside a function is not
 * one, nor a type-only import. child_process (~1.5 ms of CPU in Bun 1.4.5), url and fs/promises (~2 ms) load where they
 * are first used: before the MCP servers' spawn they were ~3.5 ms of the prelude's CPU (issue 21).
 */
const SLOW_BUILTIN_IMPORT = /^(?:(?:import(?!\s+type\b)|export(?!\s+type\b))\b[^;]*?\bfrom\s*|import\s*|(?:const|let|var)\b[^;]*?=\s*require\(\s*)["'](?:node:)?(?:crypto|tty|readline|http|https|http2|zlib|net|tls|child_process|url|fs\/promises)["']/m;

/** A module-level import (ESM or CommonJS) of any Node or Bun built-in. */
const ANY_BUILTIN_IMPORT = /^(?:(?:import|export)\b[^;]*?\bfrom\s*|import\s*|(?:const|let|var)\b[^;]*?=\s*require\(\s*)["'](?:node:|bun:)?(?:fs|fs\/promises|path|os|child_process|crypto|tty|readline|http|https|http2|zlib|net|tls|util|events|stream|buffer|url|assert|worker_threads|jsc|sqlite|ffi)["']/m;

describe("modules loaded per way in", () => {
  test("--version loads main, the version and the output module, nothing else", async () => {
    expect((await modulesOf(["--version"])).sort()).toEqual(["src/main.ts", "src/util/output.ts", "src/version.ts"]);
  });

  test("the binary's entry (src/entry.ts) answers --version and -v loading nothing else, and hands the rest to main.ts", async () => {
    // Issue 21.4: with main.ts as the entry, its imports and code cost --version ~60 page faults (Bun 1.4.5).
    // (The entry itself is not listed: it exits while still being evaluated, before Bun records it.)
    for (const flag of ["--version", "-v"]) {
      const mods = (await modulesOf([flag], {}, undefined, "src/entry.ts")).filter((m) => m !== "src/entry.ts");
      expect({ flag, mods }).toEqual({ flag, mods: [] });
    }
    // YOKE_TIMING=1 wants main.ts's marks; a second argument, another flag or a subcommand are main.ts's to read.
    for (const [args, env] of [[["--version"], { YOKE_TIMING: "1" }], [["--version", "--help"], {}], [["-v", "-v"], {}], [["--help"], {}], [["mcp", "--help"], {}]] as const) {
      const mods = await modulesOf([...args], env, undefined, "src/entry.ts");
      expect({ args, main: mods.includes("src/main.ts") }).toEqual({ args, main: true });
    }
  });

  test("--version from the entry and from main.ts print the same line", async () => {
    const run = async (file: string) => {
      const p = Bun.spawn([process.execPath, join(root, file), "--version"], { env: isolatedEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      return { out: await new Response(p.stdout).text(), err: await new Response(p.stderr).text(), code: await p.exited };
    };
    const [entry, main] = [await run("src/entry.ts"), await run("src/main.ts")];
    expect(entry).toEqual(main);
    expect(entry.out).toMatch(/ \(yoke\)\n$/);
  });

  test("--version imports no Node built-in at module level, not even node:fs", async () => {
    // Bun 1.4.5: `import { writeSync } from "node:fs"` alone costs a compiled start ~2 ms of CPU, ~190 page faults and
    // ~2 MiB of RSS, a fifth of the whole of `--version` (bench/ab.ts; issue 21). A require() inside a function is fine.
    const mods = [...(await modulesOf(["--version"])), "src/entry.ts"];
    expect(mods.filter((m) => ANY_BUILTIN_IMPORT.test(readFileSync(join(root, m), "utf8")))).toEqual([]);
  });

  test("--help loads no package of the model, the UI, MCP or WebFetch, and no subcommand", async () => {
    const mods = await modulesOf(["--help"]);
    expect(of(mods, ...HEAVY_UNUSED, "@anthropic-ai/sdk", "zod", "yaml")).toEqual([]);
    expect(Object.keys(COMMANDS).filter((c) => mods.includes(`src/cli/commands/${c}.ts`))).toEqual([]);
  });

  test("each subcommand's --help loads its own module only, and never the UI or the model's SDK", async () => {
    for (const name of Object.keys(COMMANDS)) {
      const mods = await modulesOf([name, "--help"]);
      expect({ name, heavy: of(mods, ...HEAVY_UNUSED, "@anthropic-ai/sdk") }).toEqual({ name, heavy: [] });
      const others = Object.keys(COMMANDS).filter((o) => o !== name && mods.includes(`src/cli/commands/${o}.ts`));
      expect({ name, others }).toEqual({ name, others: [] });
    }
  });

  test("the headless path (-p, no MCP server configured) loads the SDK's streaming and error modules but not its client, no UI, no MCP client, no HTML converter", async () => {
    fake.push({ content: [{ type: "text", text: "hello" }] });
    const mods = await modulesOf(["-p", "say hello"]);
    expect(mods).toContain("src/provider/anthropic/messages-client.ts");
    const sdk = of(mods, "@anthropic-ai/sdk").map((m) => m.replace(/^.*@anthropic-ai\/sdk\//, ""));
    expect(sdk).toContain("core/streaming.mjs");
    // Its client and resources cost a one-turn run ~1 MiB of peak RSS and ~20 ms of CPU (issue 21): messages-client.ts says why.
    expect(sdk.filter((m) => !/^(core\/(streaming|error)|internal\/)/.test(m))).toEqual([]);
    expect(of(mods, ...HEAVY_UNUSED, "@opentelemetry/api")).toEqual([]);
    // Node built-ins whose import alone costs a start milliseconds of CPU (node:crypto ~6, node:tty ~4; Bun 1.4.5):
    // UUIDs and hashes come from src/util/random.ts, and diagnostics ask isatty only when a line is written.
    expect(mods.filter((m) => SLOW_BUILTIN_IMPORT.test(readFileSync(join(root, m), "utf8")))).toEqual([]);
  });

  // Issue 21: what a prompt-only run needs neither before its first request nor for its answer stays unread: the Bash
  // checker (its first Bash decision loads it) and the stream-json channel. (zod's JSON Schema reader in a chunk of its
  // own was measured too: 8 KB more binary for ~25 KB of source a start does not run; not taken.)
  const LAZY_UNTIL_USED = ["src/permission/bash-check.ts", "src/permission/bash-words.ts", "src/cli/stdin.ts", "src/cli/control/host.ts", "src/cli/control/initialize.ts"];

  test("-p with a prompt loads no Bash checker and no stream-json channel", async () => {
    fake.push({ content: [{ type: "text", text: "hello" }] });
    const mods = await modulesOf(["-p", "say hello"]);
    expect(mods.filter((m) => LAZY_UNTIL_USED.includes(m))).toEqual([]);
  });

  test("the Bash checker loads when it is used, at a Bash call; --json-schema still works", async () => {
    fake.push({ content: [{ type: "tool_use", name: "Bash", input: { command: "echo hi", description: "say hi" } }] });
    fake.push({ content: [{ type: "text", text: "done" }] });
    const bash = await modulesOf(["-p", "run it", "--allowedTools", "Bash(echo:*)"]);
    expect(LAZY_UNTIL_USED.slice(0, 2).filter((m) => !bash.includes(m))).toEqual([]);
    fake.push({ content: [{ type: "tool_use", name: "StructuredOutput", input: { n: 1 } }] });
    fake.push({ content: [{ type: "text", text: "done" }] });
    const schema = await modulesOf(["-p", "a number", "--output-format", "json", "--json-schema", JSON.stringify({ type: "object", properties: { n: { type: "number" } }, required: ["n"] })]);
    expect(schema).toContain("src/tool/json-tool.ts");
  });

  // The YAML library loads only for a frontmatter block the flat reader leaves to it (src/util/frontmatter.ts).
  const withFrontmatter = (agentFm: string) => (cwd: string) => {
    const write = (rel: string, text: string) => {
      mkdirSync(dirname(join(cwd, rel)), { recursive: true });
      writeFileSync(join(cwd, rel), text);
    };
    write("CLAUDE.md", "---\npaths: src/**\n---\nUse tabs.\n");
    write(".claude/skills/lint/SKILL.md", "---\nname: lint\ndescription: Lints the code, fast\n---\nRun the linter.\n");
    write(".claude/agents/reviewer.md", `---\n${agentFm}\n---\nReview the diff.\n`);
  };

  test("-p with flat frontmatter everywhere (instructions, a skill, an agent with a tool list) loads no YAML library", async () => {
    fake.push({ content: [{ type: "text", text: "hello" }] });
    const mods = await modulesOf(["-p", "say hello"], {}, withFrontmatter("name: reviewer\ndescription: Reviews diffs\ntools:\n  - Read\n  - Grep\nmodel: haiku\nmaxTurns: 5"));
    expect(of(mods, "yaml")).toEqual([]);
  });

  // A decimal integer is flat (the fast reader gives the library's 5); a float and a block scalar are not.
  test("-p with an agent whose frontmatter needs YAML (a float, a block scalar) loads it", async () => {
    for (const fm of ["name: reviewer\ndescription: Reviews diffs\nmaxTurns: 5\nscore: 1.5", "name: reviewer\ndescription: >\n  Reviews\n  diffs"]) {
      fake.push({ content: [{ type: "text", text: "hello" }] });
      const mods = await modulesOf(["-p", "say hello"], {}, withFrontmatter(fm));
      expect({ fm, yaml: of(mods, "yaml").length > 0 }).toEqual({ fm, yaml: true });
    }
  });
});
