// Issue 8 points 2, 4 and 5 end to end: memory extraction and replaceable plugins in the compiled binary.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EXTRACTION_MARKER } from "../../plugins/memory-extraction/index.ts";
import { fakeApiEnv, toolResultsOf, type LoggedRequest } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke, TRUST_WORKSPACE } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { jsonLines as lines, memDirOf, systemText, transcript, userText } from "./memory-helpers.ts";

const fake = useFakeAnthropic();

const isExtraction = (req: LoggedRequest) => systemText(req).startsWith(EXTRACTION_MARKER);

/** The extraction fork's two replies: it writes a feedback memory and its index line, then stops. */
function extractionScript(memDir: string, seen: LoggedRequest[]) {
  return [
    (req: LoggedRequest) => {
      seen.push(req);
      if (!isExtraction(req)) throw new Error(`expected the extraction fork, got system: ${systemText(req).slice(0, 80)}`);
      return {
        content: [
          {
            type: "tool_use" as const,
            name: "Write",
            input: {
              file_path: join(memDir, "indent-with-tabs.md"),
              content:
                "---\nname: indent-with-tabs\ndescription: The user wants tabs, never spaces, for indentation in every language\ntype: feedback\n---\nIndent with tabs, never spaces.\n**Why:** the user said so and wants it in every project.\n**How to apply:** any file you write or edit.\n",
            },
          },
          { type: "tool_use" as const, name: "Write", input: { file_path: join(memDir, "MEMORY.md"), content: "- [Tabs, not spaces](indent-with-tabs.md) — the user's indentation rule\n" } },
        ],
      };
    },
    (req: LoggedRequest) => {
      seen.push(req);
      if (!isExtraction(req)) throw new Error("expected the extraction fork's second turn");
      return { content: [{ type: "text" as const, text: "saved" }] };
    },
  ];
}

describe("memory extraction (issue 8 point 2, point 5)", () => {
  test("a stated preference is saved by the extraction fork and reaches a later session's request", async () => {
    const cwd = tempDir();
    const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_MEMORY_EXTRACTION: "1" });
    const memDir = memDirOf(env, cwd);
    const seen: LoggedRequest[] = [];
    const before = fake.requests.length;
    fake.push({ content: [{ type: "text", text: "Understood: tabs from now on." }] }, ...extractionScript(memDir, seen));
    const r = await runYoke(["-p", "From now on always indent with tabs, in every project.", "--output-format", "stream-json", "--verbose"], { cwd, env });
    expect(r.code).toBe(0);
    expect(fake.unexpected).toBe(0);
    expect(fake.pending).toBe(0);

    // The fork got our prompt with the conversation, the restricted tools, and its writes were allowed.
    expect(seen).toHaveLength(2);
    const forkReq = seen[0]!.body;
    expect(userText(forkReq.messages[0])).toContain("always indent with tabs");
    expect(userText(forkReq.messages[0])).toContain(memDir);
    const tools = forkReq.tools.map((t: any) => t.name);
    expect([...tools].sort()).toEqual(["Bash", "Edit", "Glob", "Grep", "Read", "Write"]);
    expect(toolResultsOf(seen[1]!).every((t) => !t.is_error)).toBe(true);
    // The main conversation was not touched by the fork.
    expect(fake.requests.slice(before).filter((q) => !isExtraction(q))).toHaveLength(1);

    // On disk: the typed memory file and its one-line pointer.
    const file = readFileSync(join(memDir, "indent-with-tabs.md"), "utf8");
    expect(file).toContain("type: feedback");
    expect(readFileSync(join(memDir, "MEMORY.md"), "utf8")).toContain("(indent-with-tabs.md)");

    // stream-json: a notice, then the result, which still carries the main agent's answer.
    const out = lines(r.stdout);
    const note = out.find((l) => l.type === "system" && l.subtype === "notification");
    expect(note?.message).toContain("Memory updated: indent-with-tabs.md");
    expect(note?.source).toBe("plugin:memory-extraction");
    const result = out.find((l) => l.type === "result");
    expect(result.result).toBe("Understood: tabs from now on.");
    expect(out.indexOf(note)).toBeLessThan(out.indexOf(result));

    // A second, new session: the index is in the first message; the side query picks the file and it is attached.
    const env2 = isolatedEnv({ ...fakeApiEnv(fake), HOME: env.HOME, YOKE_CONFIG_DIR: env.YOKE_CONFIG_DIR });
    const start2 = fake.requests.length;
    fake.push(
      (req) => {
        if (!systemText(req).includes("saved memory files")) throw new Error("expected the relevant-memory side query");
        expect(userText(req.body.messages[0])).toContain("indent-with-tabs.md");
        return { content: [{ type: "text", text: '{"selected_memories":["indent-with-tabs.md"]}' }] };
      },
      { content: [{ type: "text", text: "Here is the function, indented with tabs." }] },
    );
    const r2 = await runYoke(["-p", "write a hello world function in main.go"], { cwd, env: env2 });
    expect(r2.code).toBe(0);
    expect(r2.stdout).toBe("Here is the function, indented with tabs.\n");
    expect(fake.unexpected).toBe(0);
    const main2 = fake.requests.slice(start2).find((q) => !systemText(q).includes("saved memory files"))!.body;
    const first = userText(main2.messages[0]);
    expect(first).toContain("- [Tabs, not spaces](indent-with-tabs.md)");
    expect(first).toContain("Indent with tabs, never spaces.");
    expect(first.indexOf("Indent with tabs, never spaces.")).toBeLessThan(first.indexOf("write a hello world function"));
    // Extraction is off by default: no fork ran in the second session.
    expect(fake.requests.slice(start2).some(isExtraction)).toBe(false);
  });

  test("the extraction fork may write only inside the memory directory, and Bash only read-only", async () => {
    const cwd = tempDir();
    const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_MEMORY_EXTRACTION: "1" });
    const memDir = memDirOf(env, cwd);
    const second: LoggedRequest[] = [];
    fake.push(
      { content: [{ type: "text", text: "ok" }] },
      {
        content: [
          { type: "tool_use", id: "toolu_out", name: "Write", input: { file_path: join(cwd, "outside.md"), content: "x" } },
          { type: "tool_use", id: "toolu_in", name: "Write", input: { file_path: join(memDir, "inside.md"), content: "---\nname: inside\ndescription: d\ntype: user\n---\nx\n" } },
          { type: "tool_use", id: "toolu_rm", name: "Bash", input: { command: `rm -f ${join(cwd, "keep.txt")}` } },
          { type: "tool_use", id: "toolu_ls", name: "Bash", input: { command: `ls ${memDir}` } },
        ],
      },
      (req) => {
        second.push(req);
        return { content: [{ type: "text", text: "done" }] };
      },
    );
    writeTree(cwd, { "keep.txt": "keep\n" });
    const r = await runYoke(["-p", "I am a data engineer"], { cwd, env });
    expect(r.code).toBe(0);
    expect(fake.unexpected).toBe(0);
    const results = Object.fromEntries(toolResultsOf(second[0]!).map((t) => [t.tool_use_id, t]));
    expect(results.toolu_out!.is_error).toBe(true);
    expect(results.toolu_out!.text).toContain("may only write inside");
    expect(results.toolu_in!.is_error).toBe(false);
    expect(results.toolu_rm!.is_error).toBe(true);
    expect(results.toolu_ls!.is_error).toBe(false);
    expect(results.toolu_ls!.text).toContain("inside.md");
    expect(existsSync(join(cwd, "outside.md"))).toBe(false);
    expect(existsSync(join(cwd, "keep.txt"))).toBe(true);
    expect(existsSync(join(memDir, "inside.md"))).toBe(true);
  });

  test("no extraction when the main agent saved memory itself in that turn", async () => {
    const cwd = tempDir();
    const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_MEMORY_EXTRACTION: "1" });
    const memDir = memDirOf(env, cwd);
    const start = fake.requests.length;
    fake.push(
      { content: [{ type: "tool_use", name: "Write", input: { file_path: join(memDir, "me.md"), content: "---\nname: me\ndescription: d\ntype: user\n---\nx\n" } }] },
      { content: [{ type: "text", text: "Saved it myself." }] },
    );
    const r = await runYoke(["-p", "remember that I am a Go developer"], { cwd, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Saved it myself.\n");
    expect(existsSync(join(memDir, "me.md"))).toBe(true);
    expect(fake.unexpected).toBe(0);
    expect(fake.requests.slice(start).some(isExtraction)).toBe(false);
  });

  test("the memoryExtraction setting alone turns it on; the --verbose text run shows the notice on stderr", async () => {
    const cwd = tempDir();
    writeTree(cwd, { ".claude/settings.json": JSON.stringify({ memoryExtraction: true }) });
    const env = isolatedEnv({ ...TRUST_WORKSPACE, ...fakeApiEnv(fake) });
    const seen: LoggedRequest[] = [];
    fake.push({ content: [{ type: "text", text: "Noted." }] }, ...extractionScript(memDirOf(env, cwd), seen));
    const r = await runYoke(["-p", "tabs everywhere, always", "--verbose"], { cwd, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Noted.\n");
    expect(seen).toHaveLength(2);
    expect(r.stderr).toContain("yoke [plugin memory-extraction]: Memory updated: indent-with-tabs.md");
  });

  test("with streamed input the next prompt is not held up by a slow extraction (drained at exit instead)", async () => {
    const cwd = tempDir();
    const env = isolatedEnv({ ...TRUST_WORKSPACE, ...fakeApiEnv(fake), YOKE_MEMORY_EXTRACTION: "1" });
    let mains = 0;
    const forkAt: number[] = [];
    const router = async (req: LoggedRequest) => {
      if (isExtraction(req)) {
        forkAt.push(req.at);
        // Barrier, not a time window: the first extraction answers only once the second prompt has reached the
        // model. A next prompt held up by the extraction never comes, and this wait fails naming it.
        await waitFor(() => mains >= 2, "the second prompt to reach the model while the first extraction is still answering");
        return { content: [{ type: "text" as const, text: "nothing to save" }] };
      }
      return { content: [{ type: "text" as const, text: `answer ${++mains}` }] };
    };
    const start = fake.requests.length;
    fake.push(router, router, router, router);
    const stdin = ["first: I like tabs", "second: and short names"].map((t) => JSON.stringify({ type: "user", message: { role: "user", content: t } })).join("\n") + "\n";
    const r = await runYoke(["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"], { cwd, env, stdin, timeoutMs: 60_000 });
    expect(r.code).toBe(0);
    expect(fake.unexpected).toBe(0);
    const results = lines(r.stdout).filter((l) => l.type === "result").map((l) => l.result);
    expect(results).toEqual(["answer 1", "answer 2"]);
    const reqs = fake.requests.slice(start);
    const secondMain = reqs.filter((q) => !isExtraction(q))[1]!;
    // The second prompt went to the model while the first extraction was still answering.
    expect(forkAt.length).toBeGreaterThanOrEqual(1);
    expect(secondMain.at).toBeGreaterThanOrEqual(forkAt[0]!);
    // Both turns were considered before exit (the second request coalesced or ran after the first).
    expect(reqs.filter(isExtraction).length).toBe(2);
    const secondFork = reqs.filter(isExtraction)[1]!;
    expect(userText(secondFork.body.messages[0])).toContain("second: and short names");
    expect(userText(secondFork.body.messages[0])).not.toContain("first: I like tabs");
  });

  test("YOKE_MEMORY_EXTRACTION=0 wins over memoryExtraction: true in settings", async () => {
    const cwd = tempDir();
    writeTree(cwd, { ".claude/settings.json": JSON.stringify({ memoryExtraction: true }) });
    const start = fake.requests.length;
    fake.push({ content: [{ type: "text", text: "ok" }] });
    const r = await runYoke(["-p", "I prefer short answers always"], { cwd, env: isolatedEnv({ ...TRUST_WORKSPACE, ...fakeApiEnv(fake), YOKE_MEMORY_EXTRACTION: "0" }) });
    expect(r.code).toBe(0);
    expect(fake.unexpected).toBe(0);
    expect(fake.requests.slice(start).some(isExtraction)).toBe(false);
  });

  test("a failing extraction fork never costs the user's answer or transcript", async () => {
    const cwd = tempDir();
    const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_MEMORY_EXTRACTION: "1", YOKE_RETRY_BASE_MS: "5" });
    fake.push({ content: [{ type: "text", text: "Answer survives." }] }, { fault: 400, message: "extraction request refused" });
    const r = await runYoke(["-p", "I like my commits small and frequent"], { cwd, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Answer survives.\n");
    expect(r.stderr).toContain("[plugin memory-extraction]");
    const t = transcript(env, cwd).filter((l) => (l.type === "user" || l.type === "assistant") && !l.isSidechain);
    expect(t.map((l) => l.type)).toEqual(["user", "assistant"]);
    expect(existsSync(join(memDirOf(env, cwd), "MEMORY.md"))).toBe(false);
  });

  test("a hanging extraction fork is cut off by the cap; the answer still prints", async () => {
    const cwd = tempDir();
    const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_MEMORY_EXTRACTION: "1", YOKE_BACKGROUND_CAP_MS: "800" });
    fake.push({ content: [{ type: "text", text: "Still here." }] }, { fault: "hang" });
    const r = await runYoke(["-p", "call me Sam from now on", "--output-format", "json"], { cwd, env });
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe("Still here.");
    const t = transcript(env, cwd).filter((l) => (l.type === "user" || l.type === "assistant") && !l.isSidechain);
    expect(t.map((l) => l.type)).toEqual(["user", "assistant"]);
  });
});

describe("replaceable first-party plugins (issue 8 point 4)", () => {
  test("a project plugin named memory-extraction takes the first-party one's place", async () => {
    const cwd = tempDir();
    writeTree(cwd, {
      ".yoke/plugins/memory-extraction.ts": `
import { writeFileSync } from "node:fs";
import { join } from "node:path";
export default {
  name: "memory-extraction",
  version: "0.1.0",
  setup(host) {
    host.hooks.on("Stop", () => {
      host.background("save", async () => {
        if (!host.session.memoryDir) return;
        writeFileSync(join(host.session.memoryDir, "replaced.md"), "by the replacement\\n");
        host.notify("replacement saved " + host.session.messages().length + " messages");
      });
    });
  },
};
`,
    });
    const env = isolatedEnv({ ...TRUST_WORKSPACE, ...fakeApiEnv(fake), YOKE_MEMORY_EXTRACTION: "1" });
    const start = fake.requests.length;
    fake.push({ content: [{ type: "text", text: "hello" }] });
    const r = await runYoke(["-p", "hi, I am Ann", "--output-format", "stream-json", "--verbose"], { cwd, env });
    expect(r.code).toBe(0);
    expect(fake.unexpected).toBe(0);
    expect(fake.requests.slice(start).some(isExtraction)).toBe(false);
    const out = lines(r.stdout);
    const init = out.find((l) => l.subtype === "init");
    const mine = init.plugins.filter((p: any) => p.name === "memory-extraction");
    expect(mine).toEqual([{ name: "memory-extraction", path: join(cwd, ".yoke/plugins/memory-extraction.ts") }]);
    expect(out.find((l) => l.subtype === "notification")?.message).toBe("replacement saved 2 messages");
    expect(readFileSync(join(memDirOf(env, cwd), "replaced.md"), "utf8")).toBe("by the replacement\n");
  });

  test("each memory plugin can be switched off by name (YOKE_DISABLE_PLUGINS, settings plugins)", async () => {
    const cwd = tempDir();
    writeTree(cwd, { ".claude/settings.json": JSON.stringify({ plugins: { "session-memory": false } }) });
    const env = isolatedEnv({ ...TRUST_WORKSPACE, ...fakeApiEnv(fake), YOKE_MEMORY_EXTRACTION: "1", YOKE_SESSION_MEMORY: "1", YOKE_DISABLE_PLUGINS: "memory-extraction" });
    const start = fake.requests.length;
    fake.push({ content: [{ type: "text", text: "ok" }], usage: { input_tokens: 50_000 } });
    const r = await runYoke(["-p", "I always want tests first", "--output-format", "stream-json", "--verbose"], { cwd, env });
    expect(r.code).toBe(0);
    expect(fake.unexpected).toBe(0);
    expect(fake.requests.length - start).toBe(1);
    const init = lines(r.stdout).find((l) => l.subtype === "init");
    const names = init.plugins.map((p: any) => p.name);
    expect(names).toContain("attribution");
    expect(names).not.toContain("memory-extraction");
    expect(names).not.toContain("session-memory");
  });
});
