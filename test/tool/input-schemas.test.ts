// Issue 21 point 3 ("load less"): yoke's own tools send a generated JSON Schema and build their zod input only when
// first called, so a start that calls no tool builds none of them.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { toolJsonSchema } from "../../src/tool/define-tool.ts";
import { generateInputSchemas, HAND_WRITTEN, inputSchemasFile, ownTools } from "../../src/tool/gen-input-schemas.ts";
import { INPUT_SCHEMAS } from "../../src/tool/input-schemas.ts";
import { repoRoot } from "../helpers/binary.ts";

describe("generated tool input schemas", () => {
  test("committed src/tool/input-schemas.json matches the tools' zod inputs (run `bun run schemas` after changing one)", () => {
    expect(readFileSync(inputSchemasFile, "utf8")).toBe(`${JSON.stringify(generateInputSchemas(), null, 2)}\n`);
  });

  test("every own tool without a hand-written schema sends its generated one, key order included", () => {
    const tools = ownTools();
    expect(tools.length).toBeGreaterThan(15);
    for (const t of tools) {
      if (HAND_WRITTEN.has(t.name)) continue;
      expect({ tool: t.name, has: Object.hasOwn(INPUT_SCHEMAS, t.name) }).toEqual({ tool: t.name, has: true });
      // The same bytes as zod's conversion: the request (and its prompt-cache prefix) is unchanged.
      expect(JSON.stringify(t.jsonSchema), t.name).toBe(JSON.stringify(toolJsonSchema(t.inputSchema)));
      expect(t.jsonSchema, t.name).toBe(INPUT_SCHEMAS[t.name]!);
    }
  });

  test("making the tools and reading their JSON Schemas builds no zod input; the first call builds its tool's once", async () => {
    // A fresh process: in this one other test files may have called the tools already. zod registers every
    // `.describe()`d schema as it is made; the tools' field descriptions say which of theirs were built.
    const root = repoRoot();
    const script = `
      import { z } from "zod";
      const made = [];
      const add = z.globalRegistry.add.bind(z.globalRegistry);
      z.globalRegistry.add = (s, ...m) => (made.push(m[0]?.description), add(s, ...m));
      const { ownTools } = await import(${JSON.stringify(join(root, "src/tool/gen-input-schemas.ts"))});
      const tools = ownTools();
      const texts = new Set();
      const collect = (v) => v && typeof v === "object" && Object.entries(v).forEach(([k, x]) => (k === "description" && typeof x === "string" ? texts.add(x) : collect(x)));
      tools.forEach((t) => collect(t.jsonSchema));
      const ours = () => made.filter((d) => texts.has(d)).length;
      const atStart = ours();
      const read = tools.find((t) => t.name === "Read");
      const bad = read.parse({ file_path: 1 });
      const afterFirst = ours();
      read.parse({ file_path: "/x" });
      console.log(JSON.stringify({ atStart, afterFirst, afterSecond: ours(), error: bad.error }));
    `;
    const p = Bun.spawn([process.execPath, "-e", script], { cwd: root, stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
    expect({ code: await p.exited, err }).toEqual({ code: 0, err: "" });
    const r = JSON.parse(out) as { atStart: number; afterFirst: number; afterSecond: number; error: string };
    expect(r.atStart).toBe(0);
    expect(r.afterFirst).toBeGreaterThan(0);
    expect(r.afterSecond).toBe(r.afterFirst);
    // Validation words its errors as before the schema was made lazily.
    expect(r.error).toBe("InputValidationError: Read was called with invalid input. Fix these and call it again:\n- file_path: Invalid input: expected string, received number");
  });
});
