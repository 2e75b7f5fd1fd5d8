// Issue 21 point 2: zod's JIT compiles a parser per object schema with `new Function` on its first parse, which a
// short run never earns back. src/util/zod-setup.ts switches it off, and must run before any schema is made (zod
// reads the setting then): each way in imports it first. Run in a fresh process, since the setting is global.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { repoRoot } from "../helpers/binary.ts";

const root = repoRoot();

/** How many functions zod compiled while parsing a settings file, after importing `first` (then the schema). */
async function compiledAfter(first: string | null): Promise<number> {
  const script = `
    ${first ? `await import(${JSON.stringify(join(root, first))});` : ""}
    const { settingsSchema } = await import(${JSON.stringify(join(root, "src/config/schema.ts"))});
    let compiled = 0;
    const F = globalThis.Function;
    globalThis.Function = new Proxy(F, { construct(t, a, n) { compiled++; return Reflect.construct(t, a, n); } });
    const r = settingsSchema.safeParse({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: "exit 0" }] }] }, permissions: { allow: ["Bash(ls:*)"] }, model: "opus" });
    globalThis.Function = F;
    if (!r.success) throw new Error("settings did not parse: " + JSON.stringify(r.error.issues));
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
