// A tool's outputSchema is still enforced now that the JSON Schema validator loads on first use (issue 21: the MCP
// client's ajv is no longer made at every start; src/mcp/schema-validator.ts, build-plugins.ts). Run by the compiled
// binary, whose bundle reaches ajv only through that lazy path.
import { beforeAll, expect, test } from "bun:test";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { yokeBin } from "../helpers/binary.ts";
import { runWith, say } from "./hooks-helpers.ts";
import { mcpProject, tiny } from "./mcp-helpers.ts";


beforeAll(() => {
  yokeBin();
});

const typed = (n: unknown) => ({ type: "tool_use" as const, name: "mcp__t__typed", input: { n } });

test("structured content that matches the tool's outputSchema is the answer; content that does not is an error naming the mismatch", async () => {
  const cwd = mcpProject({ t: tiny("typed") }, { enabledMcpjsonServers: ["t"] });
  const r = await runWith(cwd, [{ content: [typed(1), typed("one")] }, { content: [typed(2)] }, say("done")], []);
  expect(r.code).toBe(0);
  const [good, bad] = toolResultsOf(r.requests[1]!);
  expect(good).toMatchObject({ is_error: false, text: '{"n":1}' });
  expect(bad!.is_error).toBe(true);
  expect(bad!.text).toContain("Structured content does not match the tool's output schema");
  expect(bad!.text).toContain("must be number");
  // The validator made on the first listing serves later calls of the same run.
  expect(toolResultsOf(r.requests[2]!)[0]).toMatchObject({ is_error: false, text: '{"n":2}' });
  expect(r.stdout).toBe("done\n");
});

test("two servers each with an output schema: each one's calls are checked against its own tool's schema", async () => {
  const cwd = mcpProject({ t: tiny("typed"), u: tiny("typed") }, { enabledMcpjsonServers: ["t", "u"] });
  const r = await runWith(cwd, [{ content: [typed("x"), { type: "tool_use", name: "mcp__u__typed", input: { n: 3 } }] }, say("done")], []);
  expect(r.code).toBe(0);
  const [t, u] = toolResultsOf(r.requests[1]!);
  expect(t!.is_error).toBe(true);
  expect(t!.text).toContain("does not match the tool's output schema");
  expect(u).toMatchObject({ is_error: false, text: '{"n":3}' });
});
