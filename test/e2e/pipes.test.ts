/**
 * Issue 20.1: everything yoke prints reaches a slow reader of a real pipe, whole, in every output format and
 * subcommand; a reader that goes away ends the run quietly with the transcript intact.
 *
 * The reader is a shell `(sleep 2; cat > FILE)`: yoke finishes long before the reader takes a byte, so an
 * exit that does not wait for the pipe loses everything past the pipe buffer (it got 64 KiB of 1 MiB).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, yokeBin } from "../helpers/binary.ts";
import { fakeApiEnv } from "../helpers/fake-anthropic.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { tempDir } from "../helpers/tmp.ts";

const MiB = 1 << 20;
const fake = useFakeAnthropic();
let bin: string;

beforeAll(async () => {
  bin = yokeBin();
});

const sh = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Runs `yoke ARGS | (sleep 2; cat > out)` in a shell; returns yoke's exit code, its stderr and what the reader got. */
async function throughSlowPipe(args: string[], opts: { stdin?: string; reader?: string } = {}) {
  const dir = tempDir("yoke-pipe-");
  const env = isolatedEnv(fakeApiEnv(fake));
  const out = join(dir, "out");
  const reader = opts.reader ?? `(sleep 2; cat > ${sh(out)})`;
  const input = opts.stdin !== undefined ? join(dir, "in") : "/dev/null";
  if (opts.stdin !== undefined) writeFileSync(input, opts.stdin);
  const script = `${[bin, ...args].map(sh).join(" ")} < ${sh(input)} 2> ${sh(join(dir, "err"))} | ${reader}; echo "\${PIPESTATUS[0]}" > ${sh(join(dir, "code"))}`;
  const p = Bun.spawn(["bash", "-c", script], { cwd: env.HOME, env, stdout: "ignore", stderr: "inherit" });
  await p.exited;
  const read = (f: string) => {
    try {
      return readFileSync(join(dir, f), "utf8");
    } catch {
      return "";
    }
  };
  return { code: Number(read("code").trim()), stderr: read("err"), stdout: read("out"), env };
}

const bigReply = (size: number) => ({ content: [{ type: "text" as const, text: "x".repeat(size) }], textChunk: 256 * 1024 });

describe("output through a slow pipe is complete (issue 20.1)", () => {
  for (const size of [MiB, 50 * MiB]) {
    const label = `${size / MiB} MiB`;
    test(`text, ${label}`, async () => {
      fake.push(bigReply(size));
      const r = await throughSlowPipe(["-p", "say it"]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout.length).toBe(size + 1);
    }, 120_000);

    test(`json, ${label}`, async () => {
      fake.push(bigReply(size));
      const r = await throughSlowPipe(["-p", "say it", "--output-format", "json"]);
      expect(r.code).toBe(0);
      const msg = JSON.parse(r.stdout);
      expect(msg.type).toBe("result");
      expect(msg.result.length).toBe(size);
    }, 120_000);

    test(`stream-json, ${label}`, async () => {
      fake.push(bigReply(size));
      const r = await throughSlowPipe(["-p", "say it", "--output-format", "stream-json", "--verbose"]);
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
      expect(lines.at(0).subtype).toBe("init");
      const result = lines.at(-1);
      expect(result.type).toBe("result");
      expect(result.result.length).toBe(size);
      const assistant = lines.find((l) => l.type === "assistant");
      expect(assistant.message.content[0].text.length).toBe(size);
    }, 120_000);
  }

  test("permissions explain --batch with many queries", async () => {
    const n = 1000;
    const queries = Array.from({ length: n }, (_, i) => JSON.stringify({ tool: "Bash", input: `echo ${i}` })).join("\n");
    const r = await throughSlowPipe(["permissions", "explain", "--batch", "-"], { stdin: queries });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(r.stdout.length).toBeGreaterThan(256 * 1024); // well past a pipe's buffer
    expect(lines.length).toBe(n);
    expect(JSON.parse(lines.at(-1)!).input.command).toBe(`echo ${n - 1}`);
  }, 60_000);

  test("sessions show --json of a large session", async () => {
    fake.push(bigReply(3 * MiB));
    const first = await throughSlowPipe(["-p", "say it", "--output-format", "json"]);
    const id = JSON.parse(first.stdout).session_id;
    const dir = tempDir("yoke-pipe-");
    const env = first.env;
    const out = join(dir, "out");
    const p = Bun.spawn(["bash", "-c", `${sh(bin)} sessions show ${id} --json | (sleep 2; cat > ${sh(out)}); echo "\${PIPESTATUS[0]}"`], {
      cwd: env.HOME,
      env,
      stdout: "pipe",
    });
    expect((await new Response(p.stdout).text()).trim()).toBe("0");
    const shown = JSON.parse(readFileSync(out, "utf8"));
    const texts = shown.entries.filter((e: any) => e.type === "assistant").map((e: any) => e.message.content[0].text);
    expect(texts.at(-1).length).toBe(3 * MiB);
  }, 60_000);

  test("a reader that goes away ends the run quietly (exit 141) with the transcript intact", async () => {
    fake.push(bigReply(4 * MiB));
    const r = await throughSlowPipe(["-p", "say it", "--output-format", "stream-json", "--verbose"], { reader: "head -c 100 > /dev/null" });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(141);
    const projects = join(r.env.YOKE_CONFIG_DIR!, "projects");
    const [proj] = readdirSync(projects);
    // The project folder also holds the session's own folder (checkpoints, subagents): take the transcript.
    const file = readdirSync(join(projects, proj!)).find((f) => f.endsWith(".jsonl"));
    const text = readFileSync(join(projects, proj!, file!), "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.trimEnd().split("\n").map((l) => JSON.parse(l)); // every line whole
    expect(lines.some((l) => l.type === "user" && JSON.stringify(l.message.content).includes("say it"))).toBe(true);
  }, 60_000);

  test("a reader that goes away from text output: exit 141, nothing on stderr", async () => {
    fake.push(bigReply(4 * MiB));
    const r = await throughSlowPipe(["-p", "say it"], { reader: "head -c 100 > /dev/null" });
    expect(r.stderr).toBe("");
    expect([0, 141]).toContain(r.code); // the write may fit the pipe before head leaves
  }, 60_000);
});
