import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { git, gitRepo, tempDir, writeTree } from "./tmp.ts";

describe("tempDir", () => {
  test("makes distinct, existing, real directories under tmpdir", () => {
    const a = tempDir();
    const b = tempDir("custom-");
    expect(a).not.toBe(b);
    expect(fs.statSync(a).isDirectory()).toBe(true);
    expect(a.startsWith(fs.realpathSync(os.tmpdir()))).toBe(true);
    expect(path.basename(b).startsWith("custom-")).toBe(true);
    expect(fs.realpathSync(a)).toBe(a);
  });

  test("directories are removed when the process exits", () => {
    const script = `import { tempDir } from ${JSON.stringify(path.join(import.meta.dir, "tmp.ts"))};
      const d = tempDir("exit-check-"); require("node:fs").writeFileSync(d + "/f", "x"); console.log(d);`;
    const r = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    expect(r.exitCode).toBe(0);
    const dir = r.stdout.toString().trim();
    expect(dir).toContain("exit-check-");
    expect(fs.existsSync(dir)).toBe(false);
  });
});

describe("writeTree", () => {
  test("writes nested files, bytes, modes and empty dirs", () => {
    const root = tempDir();
    writeTree(root, {
      "a.txt": "alpha",
      "deep/er/b.json": '{"b":1}',
      "bin/run.sh": { content: "#!/bin/sh\necho hi\n", mode: 0o755 },
      "raw.bin": new Uint8Array([0, 1, 2]),
      "empty/": "",
    });
    expect(fs.readFileSync(path.join(root, "a.txt"), "utf8")).toBe("alpha");
    expect(fs.readFileSync(path.join(root, "deep/er/b.json"), "utf8")).toBe('{"b":1}');
    expect(fs.statSync(path.join(root, "bin/run.sh")).mode & 0o777).toBe(0o755);
    expect([...fs.readFileSync(path.join(root, "raw.bin"))]).toEqual([0, 1, 2]);
    expect(fs.statSync(path.join(root, "empty")).isDirectory()).toBe(true);
  });

  test("refuses paths that escape the root", () => {
    const root = tempDir();
    expect(() => writeTree(root, { "../outside.txt": "x" })).toThrow(/stay inside/);
    expect(() => writeTree(root, { "/etc/passwd-copy": "x" })).toThrow(/must be relative/);
    expect(fs.existsSync(path.join(path.dirname(root), "outside.txt"))).toBe(false);
  });
});

describe("gitRepo", () => {
  test("inits on main with a local identity and an initial commit of existing files", () => {
    const dir = tempDir();
    writeTree(dir, { "README.md": "# hi\n", "src/x.ts": "export {};\n" });
    expect(gitRepo(dir)).toBe(dir);
    expect(git(dir, "rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
    expect(git(dir, "config", "user.name")).toBe("Yoke Test");
    expect(git(dir, "config", "user.email")).toContain("@");
    expect(git(dir, "rev-list", "--count", "HEAD")).toBe("1");
    expect(git(dir, "ls-files").split("\n").sort()).toEqual(["README.md", "src/x.ts"]);
    expect(git(dir, "status", "--porcelain")).toBe("");
  });

  test("an empty directory still gets an (empty) initial commit", () => {
    const dir = path.join(tempDir(), "fresh");
    gitRepo(dir);
    expect(git(dir, "rev-list", "--count", "HEAD")).toBe("1");
  });

  test("git() failures name the command and carry stderr", () => {
    const dir = tempDir();
    expect(() => git(dir, "log")).toThrow(/git log in .* exited 128: .*not a git repository/);
  });
});
