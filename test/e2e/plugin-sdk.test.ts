// Issue 11 point 3: the public plugin SDK. A user's TypeScript plugin, loaded by the compiled binary, imports
// values (not only types) from `yoke`: the binary provides the module. No node_modules, no build step.
import { beforeAll, expect, test } from "bun:test";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { yokeBin } from "../helpers/binary.ts";
import { writeTree } from "../helpers/tmp.ts";
import { project, runWith, say, systemText } from "./hooks-helpers.ts";

beforeAll(() => {
  yokeBin();
});

const SDK_USER = {
  ".yoke/plugins/sdk-user.ts": `
import { definePlugin, defineTool, redactSecrets, splitFrontmatter, scanMemoryFiles, type PluginHost } from "yoke";

const notes = splitFrontmatter("---\\nname: notes\\ndescription: kept short\\n---\\nbody");

export default definePlugin({
  name: "sdk-user",
  version: "1.0.0",
  setup(host: PluginHost) {
    host.systemPrompt.addSection("sdk-user", "SDK-SECTION " + String(notes.data?.description) + " " + typeof scanMemoryFiles);
    host.tools.register(
      defineTool({
        name: "Scrub",
        description: "Redacts secrets from text.",
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        readOnly: true,
        execute: (input) => redactSecrets(String(input.text)).text,
      }),
    );
  },
});
`,
};

test("a user plugin imports definePlugin, defineTool and the helpers from `yoke` in the compiled binary", async () => {
  const cwd = project();
  writeTree(cwd, SDK_USER);
  const r = await runWith(cwd, [{ content: [{ type: "tool_use", name: "Scrub", input: { text: "password: hunter2222 and more" } }] }, say("done")], [
    "--output-format",
    "json",
  ]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(systemText(r.requests[0]!)).toContain("SDK-SECTION kept short function");
  expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ text: "password: [REDACTED] and more", is_error: false });
});

test("a plugin importing a name `yoke` does not export fails to load, named, and the run goes on", async () => {
  const cwd = project();
  writeTree(cwd, { ".yoke/plugins/typo.ts": `import { definePlugn } from "yoke";\nexport default definePlugn({ name: "typo", setup() {} });\n` });
  const r = await runWith(cwd, [say("fine")], ["--output-format", "json"]);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain("typo.ts failed to load");
  expect(r.stderr).toContain("definePlugn");
});
