// Issue 17 point 8: WebSearch on the API's server-side web search tool, as Claude Code provides it (contracts §7.1,
// §7.2): a side request carries the `web_search` server tool; its results come back as server_tool_use /
// web_search_tool_result blocks and reach the model as links.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeApiEnv, startFakeAnthropic, toolResultsOf, type FakeAnthropic, type LoggedRequest } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

// Each test runs the compiled binary (some several times): seconds apiece on a loaded 2-core machine.

let fake: FakeAnthropic;
beforeAll(async () => {
  yokeBin();
  fake = await startFakeAnthropic();
});
afterAll(() => fake.stop());

const hasServerTool = (q: LoggedRequest) => (q.body.tools ?? []).some((t: any) => t.type === "web_search_20250305");

describe("WebSearch (issue 17.8)", () => {
  test("the search runs as the server tool; results reach the model as links; domain filters are passed on", async () => {
    const search = (q: LoggedRequest) => {
      expect(q.body.tools).toEqual([{ type: "web_search_20250305", name: "web_search", max_uses: 8, allowed_domains: ["bun.sh"] }]);
      return {
        content: [
          { type: "server_tool_use" as const, id: "srvtoolu_1", name: "web_search", input: { query: "bun 1.4 release" } },
          {
            type: "web_search_tool_result" as const,
            tool_use_id: "srvtoolu_1",
            content: [{ type: "web_search_result", title: "Bun 1.4", url: "https://bun.sh/blog/bun-v1.4", encrypted_content: "x", page_age: null }],
          },
          { type: "text" as const, text: "Bun 1.4 shipped with a faster bundler." },
        ],
      };
    };
    fake.push(
      { content: [{ type: "tool_use", name: "WebSearch", input: { query: "bun 1.4 release", allowed_domains: ["bun.sh"] } }] },
      search,
      { content: [{ type: "text", text: "found it" }] },
    );
    const before = fake.requests.length;
    const r = await runYoke(["-p", "what is new in bun", "--allowedTools", "WebSearch", "--output-format", "json"], { cwd: tempDir(), env: isolatedEnv({ ...fakeApiEnv(fake) }) });
    expect(r.code).toBe(0);
    expect(fake.unexpected).toBe(0);
    const reqs = fake.requests.slice(before);
    expect((reqs[0]!.body.tools as Array<{ name: string }>).map((t) => t.name)).toContain("WebSearch");
    expect(hasServerTool(reqs[1]!)).toBe(true);
    const result = toolResultsOf(reqs[2]!)[0]!;
    expect(result.is_error).toBe(false);
    expect(result.text).toStartWith('Web search results for query: "bun 1.4 release"');
    expect(result.text).toContain('{"title":"Bun 1.4","url":"https://bun.sh/blog/bun-v1.4"}');
    expect(result.text).toContain("Bun 1.4 shipped with a faster bundler.");
  });

  test("a search the API could not run is an is_error result naming the error code; both filters at once is bad input", async () => {
    fake.push(
      { content: [{ type: "tool_use", name: "WebSearch", input: { query: "anything" } }] },
      { content: [{ type: "web_search_tool_result", tool_use_id: "srvtoolu_2", content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" } }] },
      { content: [{ type: "tool_use", name: "WebSearch", input: { query: "x y", allowed_domains: ["a.com"], blocked_domains: ["b.com"] } }] },
      { content: [{ type: "text", text: "gave up" }] },
    );
    const before = fake.requests.length;
    const r = await runYoke(["-p", "search", "--allowedTools", "WebSearch"], { cwd: tempDir(), env: isolatedEnv({ ...fakeApiEnv(fake) }) });
    expect(r.code).toBe(0);
    const reqs = fake.requests.slice(before);
    expect(toolResultsOf(reqs[2]!)[0]).toMatchObject({ is_error: true });
    expect(toolResultsOf(reqs[2]!)[0]!.text).toContain("max_uses_exceeded");
    expect(toolResultsOf(reqs[3]!)[0]!.text).toContain("allowed_domains or blocked_domains, not both");
  });
});
