// Issue 21 point 2: zod's JIT compiles a parser per object schema with `new Function` on its first parse, which a
// short run never earns back. src/util/zod-setup.ts switches it off, and must run before any schema is made (zod
// reads the setting then): each way in imports it first. Run in a fresh process, since the setting is global.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { repoRoot } from "../helpers/binary.ts";

const root = repoRoot();

const SETTINGS = { hooks: { SessionStart: [{ hooks: [{ type: "command", command: "exit 0" }] }] }, permissions: { allow: ["Bash(ls:*)"] }, model: "opus" };
const MCP = { command: "node", args: ["server.js"], env: { A: "1" } };

/**
 * How many functions zod compiled while parsing a settings file and an MCP server entry, after importing `first`
 * (then the modules that make those schemas); with `first` null, a schema of the probe's own, made without any yoke
 * module (the probe can see zod's JIT).
 */
async function compiledAfter(first: string | null): Promise<number> {
  const parse = first
    ? `
    await import(${JSON.stringify(join(root, first))});
    const { settingsSchema } = await import(${JSON.stringify(join(root, "src/config/schema.ts"))});
    const { parseServerConfig } = await import(${JSON.stringify(join(root, "src/mcp/config.ts"))});
    const parse = () => {
      const r = settingsSchema.safeParse(${JSON.stringify(SETTINGS)});
      if (!r.success) throw new Error("settings did not parse: " + JSON.stringify(r.error.issues));
      const m = parseServerConfig(${JSON.stringify(MCP)});
      if (typeof m === "string") throw new Error("the MCP entry did not parse: " + m);
    };`
    : `
    const { z } = await import("zod");
    const s = z.looseObject({ model: z.string(), permissions: z.looseObject({ allow: z.array(z.string()) }) });
    const parse = () => s.parse(${JSON.stringify(SETTINGS)});`;
  const script = `${parse}
    let compiled = 0;
    const F = globalThis.Function;
    globalThis.Function = new Proxy(F, { construct(t, a, n) { compiled++; return Reflect.construct(t, a, n); } });
    parse();
    globalThis.Function = F;
    console.log(compiled);`;
  const p = Bun.spawn([process.execPath, "-e", script], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  if ((await p.exited) !== 0) throw new Error(`probe failed: ${err}`);
  return Number(out.trim());
}

test("without the setup module zod compiles parsers (the probe can see it)", async () => {
  expect(await compiledAfter(null)).toBeGreaterThan(0);
});

test("the headless path sets zod jitless before its schemas are made: no parser is compiled", async () => {
  expect(await compiledAfter("src/cli/headless.ts")).toBe(0);
});

test("so does the terminal UI's way in", async () => {
  expect(await compiledAfter("src/tui/index.ts")).toBe(0);
});
