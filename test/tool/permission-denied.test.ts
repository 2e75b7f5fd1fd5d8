import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tempDir } from "./ctx.ts";

// Root ignores file modes, so real EACCES needs an unprivileged process: when running as root with
// setpriv available, the tool runs in a subprocess as uid 65534 (nobody). Otherwise chmod alone works.
const root = process.getuid?.() === 0;
const canDrop = !root || existsSync("/usr/bin/setpriv");
const dir = tempDir();
chmodSync(dir, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const src = resolve(import.meta.dir, "../../src");

function runAsUnprivileged(tool: "read" | "write", input: Record<string, unknown>): { content: string; isError?: boolean } {
  const code = `
    import { ${tool}Tool as t } from ${JSON.stringify(`${src}/tool/builtin/${tool}.ts`)};
    import { createFileState } from ${JSON.stringify(`${src}/tool/file-state.ts`)};
    const r = await t.run(${JSON.stringify(input)}, { cwd: "/", signal: new AbortController().signal, fileState: createFileState() });
    console.log(JSON.stringify(r));`;
  const argv = root
    ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", code]
    : [process.execPath, "-e", code];
  const p = Bun.spawnSync(argv, { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir } });
  if (p.exitCode !== 0) throw new Error(`subprocess failed: ${p.stderr.toString()}`);
  return JSON.parse(p.stdout.toString());
}

describe.skipIf(!canDrop)("permission errors come back as instructions naming the path", () => {
  test("Read of a mode-000 file", () => {
    const f = join(dir, "secret.txt");
    writeFileSync(f, "hidden\n");
    chmodSync(f, 0o000);
    const r = runAsUnprivileged("read", { file_path: f });
    expect(r.isError).toBe(true);
    expect(r.content).toContain(`Permission denied reading ${f}`);
  });

  test("Write into a directory the process may not write", () => {
    const locked = join(dir, "locked");
    const target = join(locked, "new.txt");
    Bun.spawnSync(["mkdir", "-m", "555", locked]);
    const r = runAsUnprivileged("write", { file_path: target, content: "x" });
    expect(r.isError).toBe(true);
    expect(r.content).toContain(`Permission denied writing ${target}`);
    expect(existsSync(target)).toBe(false);
  });
});
