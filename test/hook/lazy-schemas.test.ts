// Issue 21 point 3 ("load less"): an event's zod schemas are made when it is first emitted or a hook's output for it
// first checked, never at import, so a start builds only those of the events it fires.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { COMMON_KEYS } from "../../src/hook/events/common.ts";
import { EVENT_SPECS, eventKeys } from "../../src/hook/events/index.ts";
import { HOOK_EVENTS } from "../../src/hook/types.ts";
import { repoRoot } from "../helpers/binary.ts";

describe("hook event schemas are made on first use", () => {
  test("importing the events makes no schema; emitting one event makes its own once; the others stay unmade", async () => {
    // A fresh process (here other tests made them already). zod calls its postProcessor for each schema it makes.
    const script = `
      import { z } from "zod";
      let made = 0;
      z.config({ postProcessor: () => void made++ });
      const ev = await import(${JSON.stringify(join(repoRoot(), "src/hook/events/index.ts"))});
      const atImport = made;
      const common = { session_id: "s", transcript_path: "/t", cwd: "/" };
      ev.buildPayload("Stop", common, { stop_hook_active: false });
      const firstEmit = made;
      ev.buildPayload("Stop", common, { stop_hook_active: true });
      const secondEmit = made;
      for (const s of Object.values(ev.EVENT_SPECS)) (s.input(), s.output());
      console.log(JSON.stringify({ atImport, firstEmit, secondEmit, all: made }));
    `;
    const p = Bun.spawn([process.execPath, "-e", script], { cwd: repoRoot(), stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
    expect({ code: await p.exited, err }).toEqual({ code: 0, err: "" });
    const r = JSON.parse(out) as { atImport: number; firstEmit: number; secondEmit: number; all: number };
    expect(r.atImport).toBe(0);
    expect(r.firstEmit).toBeGreaterThan(0);
    expect(r.secondEmit).toBe(r.firstEmit);
    // 19 events: one event's input schema is a small part of all of them.
    expect(r.all).toBeGreaterThan(10 * r.firstEmit);
  });

  test("COMMON_KEYS, written out, is the common shape in order: each input schema is common keys, hook_event_name, own keys", () => {
    for (const e of HOOK_EVENTS) {
      const keys = Object.keys((EVENT_SPECS[e].input() as unknown as { shape: object }).shape);
      const own = eventKeys(e);
      expect({ e, keys }).toEqual({ e, keys: [...COMMON_KEYS.filter((k) => !own.includes(k)), "hook_event_name", ...own] });
    }
  });
});
