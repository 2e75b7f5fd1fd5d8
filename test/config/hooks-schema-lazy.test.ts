// Issue 21 ("load less"): the hooks' zod schemas (config/hooks-schema.ts) are made when a plugin's, agent's or skill's
// hooks are first checked, not when the modules that check them load: settings' own hooks are read without zod, so a
// run whose plugins, agents and skills declare none never makes them (~3 ms of a compiled start's CPU).
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

describe("hooks schemas are made on first use", () => {
  test("loading their users makes none; a plugin without hooks makes none; one with hooks.json makes them once; a bad one is refused", async () => {
    const plain = tempDir("yoke-hs-plain-");
    const hooked = tempDir("yoke-hs-hooked-");
    const bad = tempDir("yoke-hs-bad-");
    for (const [root, name] of [[plain, "plain"], [hooked, "hooked"], [bad, "bad"]] as const) {
      mkdirSync(join(root, ".claude-plugin"), { recursive: true });
      writeFileSync(join(root, ".claude-plugin", "plugin.json"), JSON.stringify({ name }));
    }
    mkdirSync(join(hooked, "hooks"));
    writeFileSync(join(hooked, "hooks", "hooks.json"), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] } }));
    mkdirSync(join(bad, "hooks"));
    writeFileSync(join(bad, "hooks", "hooks.json"), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "shell", command: "true" }] }] } }));
    // A fresh process (other tests made them already). zod calls its postProcessor for each schema it makes.
    const src = (f: string) => JSON.stringify(join(repoRoot(), "src", f));
    const script = `
      import { z } from "zod";
      let made = 0;
      z.config({ postProcessor: () => void made++ });
      const loader = await import(${src("plugin/loader.ts")});
      await import(${src("cli/main-agent.ts")});
      await import(${src("cli/extension-wiring.ts")});
      const atImport = made;
      loader.readClaudePlugin(${JSON.stringify(plain)}, ${JSON.stringify(plain)});
      const noHooks = made;
      const info = loader.readClaudePlugin(${JSON.stringify(hooked)}, ${JSON.stringify(hooked)});
      const first = made;
      loader.readClaudePlugin(${JSON.stringify(hooked)}, ${JSON.stringify(hooked)});
      const second = made;
      let refused = "";
      try { loader.readClaudePlugin(${JSON.stringify(bad)}, ${JSON.stringify(bad)}); } catch (e) { refused = e.message; }
      console.log(JSON.stringify({ atImport, noHooks, first, second, hooks: Object.keys(info.hooks ?? {}), refused }));
    `;
    const p = Bun.spawn([process.execPath, "-e", script], { cwd: repoRoot(), stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
    expect({ code: await p.exited, err }).toEqual({ code: 0, err: "" });
    const r = JSON.parse(out) as { atImport: number; noHooks: number; first: number; second: number; hooks: string[]; refused: string };
    expect({ atImport: r.atImport, noHooks: r.noHooks }).toEqual({ atImport: 0, noHooks: 0 });
    expect(r.first).toBeGreaterThan(0);
    expect(r.second).toBe(r.first);
    expect(r.hooks).toEqual(["Stop"]);
    expect(r.refused).toContain(join(bad, "hooks", "hooks.json"));
    expect(r.refused).toContain('field "hooks.Stop.0.hooks.0.type"');
  });
});
