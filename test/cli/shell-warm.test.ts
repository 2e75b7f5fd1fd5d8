// Issue 21: the shell parser loads while a Bash command that needs it is still streaming, never for a plain command
// (src/cli/shell-warm.ts). The watcher reads the stream events the Messages API sends; these are their shapes.
import { describe, expect, test } from "bun:test";
import { bashCommandWatcher, partialCommand, warmShellParserWhileStreaming } from "../../src/cli/shell-warm.ts";
import { parsePlain } from "../../src/permission/bash-plain.ts";
import type { Provider, ProviderEvent } from "../../src/provider/types.ts";

const start = (index: number, name: string, input: Record<string, unknown> = {}) => ({ type: "content_block_start", index, content_block: { type: "tool_use", id: `t${index}`, name, input } });
const delta = (index: number, partial_json: string) => ({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } });

/** Feeds the input JSON of one Bash call in pieces of `size` characters; the number of the piece that warmed, or 0. */
function warmedAt(command: string, size: number, name = "Bash"): number {
  const json = JSON.stringify({ command, description: "step" });
  let at = 0;
  let n = 0;
  const watch = bashCommandWatcher(() => (at ||= n));
  watch(start(1, name));
  for (let i = 0; i < json.length; i += size) {
    n++;
    watch(delta(1, json.slice(i, i + size)));
  }
  return at;
}

describe("partialCommand", () => {
  test("decodes the command as far as it arrived, an unfinished escape left out", () => {
    expect(partialCommand('{"comm')).toBeUndefined();
    expect(partialCommand('{"command": "')).toBe("");
    expect(partialCommand('{"command": "git st')).toBe("git st");
    expect(partialCommand('{"command": "echo \\"hi')).toBe('echo "hi');
    expect(partialCommand('{"command": "echo \\')).toBe("echo ");
    expect(partialCommand('{"command": "a\\u00')).toBe("a");
    expect(partialCommand('{"command": "a\\u0041b"')).toBe("aAb");
    expect(partialCommand('{"command":"ls","description":"x"}')).toBe("ls");
  });
});

describe("bashCommandWatcher", () => {
  test("a plain command never warms, in any split: what parsePlain takes needs no parser", () => {
    for (const c of ["mkdir made", "git status --short", "bun test src/a.test.ts", "ls -la ./x"]) {
      expect(parsePlain(c)).not.toBeNull();
      for (const size of [1, 3, 7, 1000]) expect(warmedAt(c, size)).toBe(0);
    }
  });

  test("a command the parser must read warms once, at the piece that shows it", () => {
    for (const c of ["cd app && npm test", "ls | wc -l", 'grep -r "foo" .', "echo $HOME", "cat x > y", "ls\nrm x", "a\\b"]) {
      expect(parsePlain(c)).toBeNull();
      for (const size of [1, 5, 1000]) expect(warmedAt(c, size)).toBeGreaterThan(0);
    }
    // "ls | wc" in pieces of one character: the warm comes with the `|`, not before it.
    const json = JSON.stringify({ command: "ls | wc" });
    expect(warmedAt("ls | wc", 1)).toBe(json.indexOf("|") + 1);
  });

  test("other tools, and other blocks of the same answer, never warm; an input given whole at the start does", () => {
    expect(warmedAt("ls | wc", 4, "Read")).toBe(0);
    let n = 0;
    const watch = bashCommandWatcher(() => n++);
    watch(start(0, "Write"));
    watch(delta(0, JSON.stringify({ command: "a | b", file_path: "/x" })));
    watch({ type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "ls | wc" } });
    expect(n).toBe(0);
    watch(start(3, "Bash", { command: "ls | wc" }));
    watch(start(4, "Bash"));
    watch(delta(4, JSON.stringify({ command: "a && b" })));
    expect(n).toBe(1);
  });
});

test("the provider wrapper passes every event through and warms once a process, on a later tick", async () => {
  const events: ProviderEvent[] = [
    { type: "stream_event", event: start(0, "Bash") },
    { type: "stream_event", event: delta(0, '{"command": "ls | wc"}') },
  ];
  const inner: Provider = { async *stream() { yield* events; } } as unknown as Provider;
  let warms = 0;
  const p = warmShellParserWhileStreaming(inner, () => warms++);
  const seen: ProviderEvent[] = [];
  for await (const ev of p.stream({} as never, new AbortController().signal)) seen.push(ev);
  expect(seen).toEqual(events);
  expect(warms).toBe(0); // not inside the stream's own tick
  await new Promise((r) => setTimeout(r, 0));
  expect(warms).toBe(1);
  for await (const _ of p.stream({} as never, new AbortController().signal)) void _;
  await new Promise((r) => setTimeout(r, 0));
  expect(warms).toBe(1);
});

test("a warm that throws is dropped: the stream and the run go on", async () => {
  const inner: Provider = { async *stream() { yield { type: "stream_event", event: start(0, "Bash", { command: "a | b" }) } as ProviderEvent; } } as unknown as Provider;
  const p = warmShellParserWhileStreaming(inner, () => {
    throw new Error("no parser");
  });
  for await (const _ of p.stream({} as never, new AbortController().signal)) void _;
  await new Promise((r) => setTimeout(r, 5));
  expect(true).toBe(true);
});

describe("the Bash checker's warm (issue 21: it loads while the answer streams and the PreToolUse hooks run)", () => {
  test("a Bash call's block start warms the checker, plain command or not; other tools never", () => {
    let checker = 0;
    let parser = 0;
    const watch = bashCommandWatcher(() => parser++, () => checker++);
    watch(start(0, "Write"));
    watch(start(1, "Read"));
    watch({ type: "content_block_start", index: 2, content_block: { type: "text", text: "Bash" } });
    expect(checker).toBe(0);
    watch(start(3, "Bash"));
    expect(checker).toBe(1); // at the start, before any of its input
    watch(delta(3, JSON.stringify({ command: "mkdir made" })));
    watch(start(4, "Bash"));
    expect([checker, parser]).toEqual([1, 0]);
  });

  test("the provider wrapper warms the checker once a process, on a later tick, and still the parser when a command needs it", async () => {
    const answer = (command: string): ProviderEvent[] => [
      { type: "stream_event", event: start(0, "Bash") },
      { type: "stream_event", event: delta(0, JSON.stringify({ command })) },
    ];
    let answers = [answer("mkdir made"), answer("ls | wc")];
    const inner: Provider = { async *stream() { yield* answers.shift()!; } } as unknown as Provider;
    const warms: string[] = [];
    const p = warmShellParserWhileStreaming(inner, () => warms.push("parser"), () => warms.push("checker"));
    for await (const _ of p.stream({} as never, new AbortController().signal)) void _;
    expect(warms).toEqual([]); // not inside the stream's own tick
    await new Promise((r) => setTimeout(r, 0));
    expect(warms).toEqual(["checker"]);
    for await (const _ of p.stream({} as never, new AbortController().signal)) void _;
    await new Promise((r) => setTimeout(r, 0));
    expect(warms).toEqual(["checker", "parser"]);
    answers = [answer("a && b")];
    for await (const _ of p.stream({} as never, new AbortController().signal)) void _;
    await new Promise((r) => setTimeout(r, 0));
    expect(warms).toEqual(["checker", "parser"]);
  });
});
