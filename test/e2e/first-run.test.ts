/**
 * Issue 20 points 2, 3, 6 and issue 17.12: credentials as Claude Code picks them, errors that cannot heal fail at
 * once naming their cause, retries that back off whatever the server says and say so on stderr in every output
 * format, and streams that only ping or never finish do not hang a run. The compiled binary against the fake API.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runYoke } from "../helpers/binary.ts";
import { fakeApiEnv } from "../helpers/fake-anthropic.ts";
import { tempDir } from "../helpers/tmp.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";

const fake = useFakeAnthropic();

const ok = (text = "fine") => ({ content: [{ type: "text" as const, text }] });
const jsonOut = (stdout: string) => JSON.parse(stdout);
const streamLines = (stdout: string) => stdout.trim().split("\n").map((l) => JSON.parse(l));
const FAST = { YOKE_RETRY_BASE_MS: "5" };

/** A port nothing listens on: bound, then closed. */
function closedPort(): number {
  const s = Bun.serve({ port: 0, fetch: () => new Response("") });
  const port = s.port!;
  s.stop(true);
  return port;
}

describe("credentials in Claude Code's order (issue 20.2; Claude Code docs: ANTHROPIC_AUTH_TOKEN > ANTHROPIC_API_KEY > apiKeyHelper)", () => {
  test("ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN both set: the token is sent as Bearer, the key not at all, first try", async () => {
    fake.push(ok());
    const before = fake.requests.length;
    const r = await runYoke(["-p", "hi", "--output-format", "json"], { env: { ...fakeApiEnv(fake), ANTHROPIC_AUTH_TOKEN: "tok-123", ...FAST } });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(fake.requests.length - before).toBe(1);
    const h = fake.requests.at(-1)!.headers;
    expect(h.authorization).toBe("Bearer tok-123");
    expect(JSON.stringify(h)).not.toContain("sk-ant-fake-test-key");
  });

  test("apiKeyHelper with a token set: the helper never runs, the token is sent", async () => {
    const cwd = tempDir();
    const marker = join(cwd, "helper-ran");
    writeFileSync(join(cwd, "helper.sh"), `#!/bin/sh\ntouch '${marker}'\necho sk-from-helper\n`, { mode: 0o755 });
    fake.push(ok());
    const r = await runYoke(["-p", "hi", "--settings", JSON.stringify({ apiKeyHelper: join(cwd, "helper.sh") })], {
      cwd,
      env: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_AUTH_TOKEN: "tok-456", ...FAST },
    });
    expect(r.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(fake.requests.at(-1)!.headers.authorization).toBe("Bearer tok-456");
  });

  test("apiKeyHelper alone: its key is sent", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "helper.sh"), "#!/bin/sh\necho sk-from-helper\n", { mode: 0o755 });
    fake.push(ok());
    const r = await runYoke(["-p", "hi", "--settings", JSON.stringify({ apiKeyHelper: join(cwd, "helper.sh") })], {
      cwd,
      env: { ANTHROPIC_BASE_URL: fake.url, ...FAST },
    });
    expect(r.code).toBe(0);
    // @anthropic-ai/sdk 1.14 sends an API key as a Bearer header too (the API takes both).
    expect(fake.requests.at(-1)!.headers.authorization).toBe("Bearer sk-from-helper");
  });
});

describe("first-run errors fail fast, naming the cause (issue 17.12, 20.2)", () => {
  const variants: Array<[string, Record<string, string>, RegExp]> = [
    ["the README's placeholder key (non-ASCII …)", { ANTHROPIC_API_KEY: "sk-ant-…" }, /ANTHROPIC_API_KEY contains "…" \(U\+2026\) at character 8.*placeholder/],
    ["a token with a newline", { ANTHROPIC_AUTH_TOKEN: "tok\nen" }, /ANTHROPIC_AUTH_TOKEN contains a control character \(U\+000A\) at character 4/],
    ["a key with a non-Latin letter", { ANTHROPIC_API_KEY: "sk-ключ" }, /ANTHROPIC_API_KEY contains "к"/],
    ["a base URL without a scheme", { ANTHROPIC_BASE_URL: "api.example.com" }, /ANTHROPIC_BASE_URL "api.example.com" is not a URL: write it with its scheme, e.g. https:\/\/api.example.com/],
    ["a base URL with another scheme", { ANTHROPIC_BASE_URL: "ftp://api.example.com" }, /ANTHROPIC_BASE_URL "ftp:\/\/api.example.com" must start with http:\/\/ or https:\/\//],
  ];
  for (const [name, env, message] of variants) {
    for (const format of ["text", "json", "stream-json"]) {
      test(`${name}, ${format}: exit 1 at once, no request sent`, async () => {
        const before = fake.requests.length;
        const args = ["-p", "hi", "--output-format", format, ...(format === "stream-json" ? ["--verbose"] : [])];
        const r = await runYoke(args, { env: { ...fakeApiEnv(fake), ...env } });
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(message);
        expect(r.stderr.trim().split("\n")).toHaveLength(1);
        expect(fake.requests.length).toBe(before);
      });
    }
  }

  for (const format of ["text", "json", "stream-json"]) {
    test(`an unreachable server, ${format}: one stderr line per retry (attempt, wait, cause), then a bounded failure`, async () => {
      const args = ["-p", "hi", "--output-format", format, ...(format === "stream-json" ? ["--verbose"] : [])];
      const r = await runYoke(args, { env: { ...fakeApiEnv(fake), ANTHROPIC_BASE_URL: `http://127.0.0.1:${closedPort()}`, ...FAST } });
      expect(r.code).toBe(1);
      const retries = r.stderr.split("\n").filter((l) => l.startsWith("yoke: API error"));
      expect(retries).toHaveLength(3); // YOKE_CONNECT_RETRIES default
      expect(retries[0]).toMatch(/^yoke: API error \(unknown\): cannot reach the API at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED; retry 1 of 10 in \d+\.\d s$/);
      const failure = format === "text" ? r.stdout : format === "json" ? jsonOut(r.stdout).result : streamLines(r.stdout).at(-1).result;
      expect(failure).toContain("ECONNREFUSED");
      expect(failure).toContain("gave up after 4 attempts");
      if (format === "stream-json") expect(streamLines(r.stdout).filter((l) => l.subtype === "api_retry")).toHaveLength(3);
    });
  }
});

describe("backoff whatever the server says (issue 20.3)", () => {
  test("a 529 storm with retry-after: 0 still backs off exponentially, each wait said", async () => {
    fake.push({ fault: 529, retryAfter: 0 }, { fault: 529, retryAfter: 0 }, { fault: 529, retryAfter: 0 }, ok("through"));
    const r = await runYoke(["-p", "hi", "--output-format", "stream-json", "--verbose"], { env: { ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "40" } });
    expect(r.code).toBe(0);
    const waits = streamLines(r.stdout).filter((l) => l.subtype === "api_retry").map((l) => l.retry_delay_ms);
    expect(waits).toHaveLength(3);
    // 40 ms doubling, ±25% jitter: never the 0 the header asked for.
    waits.forEach((w: number, i: number) => expect(w).toBeGreaterThanOrEqual(0.75 * 40 * 2 ** i));
    expect(r.stderr.split("\n").filter((l) => l.startsWith("yoke: API error (529 overloaded)"))).toHaveLength(3);
  });

  for (const format of ["text", "json"]) {
    test(`a retry-after of a day ends the run at once with an error naming the header (${format})`, async () => {
      fake.push({ fault: 429, retryAfter: 86_400 });
      const before = fake.requests.length;
      const r = await runYoke(["-p", "hi", "--output-format", format], { env: { ...fakeApiEnv(fake), ...FAST } });
      expect(r.code).toBe(1);
      expect(fake.requests.length - before).toBe(1);
      const out = format === "json" ? jsonOut(r.stdout).result : r.stdout;
      expect(out).toContain("retry-after header asks for a wait of 86400 s, longer than the 60 s yoke waits (set YOKE_MAX_RETRY_WAIT_MS");
    });
  }

  test("YOKE_MAX_RETRY_WAIT_MS raises the cap: a 2 s retry-after under a 5 s cap is waited out", async () => {
    fake.push({ fault: 429, retryAfter: 2 }, ok("after the wait"));
    const r = await runYoke(["-p", "hi", "--output-format", "stream-json", "--verbose"], { env: { ...fakeApiEnv(fake), ...FAST, YOKE_MAX_RETRY_WAIT_MS: "5000" } });
    expect(r.code).toBe(0);
    expect(streamLines(r.stdout).find((l) => l.subtype === "api_retry").retry_delay_ms).toBe(2000);
  });
});

describe("streams that never finish (issue 20.6)", () => {
  test("a stream of nothing but pings is dropped after the idle timeout and retried", async () => {
    fake.push({ fault: "pings", everyMs: 10 }, ok("after pings"));
    const r = await runYoke(["-p", "hi", "--output-format", "stream-json", "--verbose"], {
      // The idle timer also runs from the retried request's start to its first event: at 300 ms a loaded machine's
      // round trip to the fake could trip it again and take the script's next reply.
      env: { ...fakeApiEnv(fake), ...FAST, YOKE_STREAM_IDLE_TIMEOUT_MS: "2000" },
    });
    expect(r.code).toBe(0);
    expect(streamLines(r.stdout).at(-1)).toMatchObject({ type: "result", result: "after pings" });
    expect(r.stderr).toContain("No data but pings from the API for 2000 ms");
  });

  test("API_TIMEOUT_MS bounds the whole request, the stream included", async () => {
    // Headers at once, then the body only after a minute: the idle timer (default 90 s) would wait; API_TIMEOUT_MS
    // does not. The limit leaves the retried request room to finish on a loaded machine (at 400 ms it could not).
    fake.push({ ...ok("slow"), delayMs: 60_000 }, ok("in time"));
    const r = await runYoke(["-p", "hi", "--output-format", "json"], { env: { ...fakeApiEnv(fake), ...FAST, API_TIMEOUT_MS: "2000" } });
    expect(r.code).toBe(0);
    expect(jsonOut(r.stdout).result).toBe("in time");
    expect(r.stderr).toContain("took longer than API_TIMEOUT_MS (2000 ms)");
  });
});

test("--debug writes a debug log and says where, once (issue 17.12)", async () => {
  fake.push(ok());
  const r = await runYoke(["-p", "hi", "--debug"], { env: { ...fakeApiEnv(fake), ...FAST } });
  expect(r.code).toBe(0);
  const said = r.stderr.split("\n").filter((l) => l.startsWith("yoke: debug log: "));
  expect(said).toHaveLength(1);
  const file = said[0]!.slice("yoke: debug log: ".length);
  expect(file.startsWith(join(r.env.YOKE_CONFIG_DIR!, "debug"))).toBe(true);
  expect(existsSync(file)).toBe(true);
});
