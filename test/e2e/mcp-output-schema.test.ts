// The MCP client checks a tool's structured output against its outputSchema (MCP spec 2025-06-18, tools: "Clients SHOULD
// validate structured results against this schema"). The binary carries the SDK's validator (ajv and its formats) as
// plain source made on the first check (build-plugins.ts, issue 21 binary size): these prove it still checks, in the
// compiled binary, and that a schema it cannot compile costs that tool's calls, not the server's other tools.
import { beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { repoRoot, yokeBin } from "../helpers/binary.ts";
import { runWith, say } from "./hooks-helpers.ts";
import { call, mcpProject } from "./mcp-helpers.ts";

setDefaultTimeout(30_000);
beforeAll(() => {
  yokeBin();
});

const server = { structured: { command: "node", args: [join(repoRoot(), "test", "fixtures", "mcp", "structured-server.mjs")] } };
const approved = { enabledMcpjsonServers: ["structured"] };

async function callOnce(tool: string, input: Record<string, unknown> = {}) {
  const r = await runWith(mcpProject(server, approved), [call(`mcp__structured__${tool}`, input), say("done")], ["--allowedTools", "mcp__structured", "--output-format", "stream-json", "--verbose"]);
  expect(r.code).toBe(0);
  expect(r.lines!.find((l) => l.subtype === "init").mcp_servers).toEqual([{ name: "structured", status: "connected" }]);
  return toolResultsOf(r.requests[1]!)[0]!;
}

test("structured output that matches the schema reaches the model", async () => {
  const res = await callOnce("weather");
  expect(res.is_error).toBe(false);
  expect(res.text).toContain('"temp":21');
});

test("a wrong type in the structured output is an error naming the schema, not data", async () => {
  const res = await callOnce("weather", { bad: true });
  expect(res.is_error).toBe(true);
  expect(res.text).toMatch(/output schema/i);
  expect(res.text).not.toContain('"temp":"hot"');
});

test("formats are checked too: a `date` that is not one is refused", async () => {
  const res = await callOnce("weather", { badDate: true });
  expect(res.is_error).toBe(true);
  expect(res.text).toMatch(/output schema/i);
});

test("an outputSchema that cannot be compiled fails that tool's call; the server's other tools still work", async () => {
  const broken = await callOnce("broken");
  expect(broken.is_error).toBe(true);
  expect(broken.text).toMatch(/missing|reference|resolve/i);
  const plain = await callOnce("plain");
  expect(plain).toMatchObject({ is_error: false, text: "plain works" });
});
