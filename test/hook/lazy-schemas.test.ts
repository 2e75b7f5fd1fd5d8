// Issue 21 point 3 ("load less"): an event's zod schemas are made when a hook's output for it is first checked (or its
// input schema is asked for), never at import or to order a payload, so a start builds only those it needs.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { COMMON_KEYS } from "../../src/hook/events/common.ts";
import { EVENT_SPECS, eventKeys, schemaEventKeys } from "../../src/hook/events/index.ts";
import { eventKeysFile, generateEventKeys } from "../../src/hook/gen-schemas.ts";
import { HOOK_EVENTS } from "../../src/hook/types.ts";
import { repoRoot } from "../helpers/binary.ts";

describe("hook event schemas are made on first use", () => {
  test("importing the events or ordering a payload makes no schema; checking one event's hook output makes its own once", async () => {
    // A fresh process (here other tests made them already). zod calls its postProcessor for each schema it makes.
    const script = `
      import { z } from "zod";
      let made = 0;
      z.config({ postProcessor: () => void made++ });
      const ev = await import(${JSON.stringify(join(repoRoot(), "src/hook/events/index.ts"))});
      const atImport = made;
      const common = { session_id: "s", transcript_path: "/t", cwd: "/" };
      ev.buildPayload("Stop", common, { stop_hook_active: false });
      const payload = made;
      ev.EVENT_SPECS.Stop.output().safeParse({ decision: "block", reason: "r" });
      const firstCheck = made;
      ev.EVENT_SPECS.Stop.output().safeParse({});
      const secondCheck = made;
      for (const s of Object.values(ev.EVENT_SPECS)) (s.input(), s.output());
      console.log(JSON.stringify({ atImport, payload, firstCheck, secondCheck, all: made }));
    `;
    const p = Bun.spawn([process.execPath, "-e", script], { cwd: repoRoot(), stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
    expect({ code: await p.exited, err }).toEqual({ code: 0, err: "" });
    const r = JSON.parse(out) as { atImport: number; payload: number; firstCheck: number; secondCheck: number; all: number };
    expect(r.atImport).toBe(0);
    expect(r.payload).toBe(0);
    expect(r.firstCheck).toBeGreaterThan(0);
    expect(r.secondCheck).toBe(r.firstCheck);
    // 19 events, input and output: one event's output schema is a small part of all of them.
    expect(r.all).toBeGreaterThan(10 * r.firstCheck);
  });

  test("committed event-keys.json matches the input schemas (run `bun run schemas` after changing an event)", () => {
    expect(readFileSync(eventKeysFile, "utf8")).toBe(generateEventKeys());
    for (const e of HOOK_EVENTS) expect({ e, keys: eventKeys(e) }).toEqual({ e, keys: schemaEventKeys(e) });
  });

  test("COMMON_KEYS, written out, is the common shape in order: each input schema is common keys, hook_event_name, own keys", () => {
    for (const e of HOOK_EVENTS) {
      const keys = Object.keys((EVENT_SPECS[e].input() as unknown as { shape: object }).shape);
      const own = eventKeys(e);
      expect({ e, keys }).toEqual({ e, keys: [...COMMON_KEYS.filter((k) => !own.includes(k)), "hook_event_name", ...own] });
    }
  });
});
