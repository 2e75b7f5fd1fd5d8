import { expect, test } from "bun:test";
import { appendFileSync, chmodSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openHistory } from "../../src/tui/history.ts";
import { tempDir } from "../helpers/tmp.ts";

test("prompts are kept per project across sessions, in Claude Code's history.jsonl shape", () => {
  const dir = tempDir();
  const errors: string[] = [];
  const a = openHistory({ yokeDir: dir, project: "/p/a", sessionId: () => "s1", onError: (m) => errors.push(m) });
  a.add("first in a");
  openHistory({ yokeDir: dir, project: "/p/b", sessionId: () => "s2", onError: (m) => errors.push(m) }).add("only in b");
  a.add("second in a\nwith two lines");
  a.add("   ");
  const again = openHistory({ yokeDir: dir, project: "/p/a", sessionId: () => "s3", onError: (m) => errors.push(m) });
  expect(again.entries).toEqual(["first in a", "second in a\nwith two lines"]);
  const line = JSON.parse(readFileSync(join(dir, "history.jsonl"), "utf8").split("\n")[0]!);
  expect(Object.keys(line)).toEqual(["display", "pastedContents", "timestamp", "project", "sessionId"]);
  expect(errors).toEqual([]);
});

test("a torn line is skipped; an unwritable file is reported once and the session goes on", () => {
  const dir = tempDir();
  appendFileSync(join(dir, "history.jsonl"), '{"display":"ok","project":"/p"}\n{"display":"tor\n');
  const errors: string[] = [];
  const h = openHistory({ yokeDir: dir, project: "/p", sessionId: () => "s", onError: (m) => errors.push(m) });
  expect(h.entries).toEqual(["ok"]);
  const ro = join(tempDir(), "ro");
  mkdirSync(ro);
  chmodSync(ro, 0o500);
  const h2 = openHistory({ yokeDir: join(ro, "sub"), project: "/p", sessionId: () => "s", onError: (m) => errors.push(m) });
  h2.add("x");
  h2.add("y");
  if (process.getuid?.() !== 0) {
    expect(errors.length).toBe(1);
    expect(errors[0]).toContain(join(ro, "sub", "history.jsonl"));
  }
  expect(h2.entries).toEqual(["x", "y"]);
});
