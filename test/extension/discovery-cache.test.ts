// Discovery's cache between runs (issue 14 point 7): an entry counts only for an unchanged, settled file, under the
// same role and the same build; anything else reads the file again.
import { describe, expect, test } from "bun:test";
import { chmodSync, chownSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoverExtensions, type DiscoverExtensionsOptions } from "../../src/extension/discover.ts";
import { openDiscoveryCache } from "../../src/extension/discovery-cache.ts";
import type { SlashCommand } from "../../src/extension/types.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";

const entry = { name: "a", description: "A" } as SlashCommand;
const st = (o: Partial<{ mtimeMs: number; ctimeMs: number; size: number; ino: number }> = {}) =>
  ({ mtimeMs: 1_000, ctimeMs: 1_000, size: 10, ino: 7, ...o }) as never;

describe("openDiscoveryCache", () => {
  test("a settled, unchanged file hits; any change of mtime, ctime, size, inode, key or build misses", () => {
    const path = join(tempDir("yoke-dcache-"), "sub", "cache.json");
    const c = openDiscoveryCache(path, "v1");
    c.store("/f", "k", st(), entry);
    c.save();
    const again = () => openDiscoveryCache(path, "v1");
    expect(again().lookup("/f", "k", st())).toEqual(entry);
    for (const changed of [{ mtimeMs: 1_001 }, { ctimeMs: 1_001 }, { size: 11 }, { ino: 8 }]) expect(again().lookup("/f", "k", st(changed))).toBeUndefined();
    expect(again().lookup("/f", "other-role", st())).toBeUndefined();
    expect(openDiscoveryCache(path, "v2").lookup("/f", "k", st())).toBeUndefined();
  });

  test("a file read within two seconds of its last write is read again next time (a coarse clock could hide a second write)", () => {
    const path = join(tempDir("yoke-dcache-"), "cache.json");
    const c = openDiscoveryCache(path, "v1");
    c.store("/fresh", "k", st({ mtimeMs: Date.now() - 500, ctimeMs: Date.now() - 500 }), entry);
    c.save();
    const s = JSON.parse(readFileSync(path.replace(/\.json$/, ".rows.json"), "utf8")).rows["/fresh"];
    expect(openDiscoveryCache(path, "v1").lookup("/fresh", "k", st({ mtimeMs: s.m, ctimeMs: s.c }))).toBeUndefined();
  });

  test("a broken cache file is no cache; files not seen this run are dropped when it is written", () => {
    const dir = tempDir("yoke-dcache-");
    const path = join(dir, "cache.json");
    writeFileSync(path, "{not json");
    const c = openDiscoveryCache(path, "v1");
    expect(c.lookup("/f", "k", st())).toBeUndefined();
    c.store("/a", "k", st(), entry);
    c.store("/b", "k", st(), entry);
    c.save();
    const d = openDiscoveryCache(path, "v1");
    expect(d.lookup("/a", "k", st())).toEqual(entry);
    d.save();
    // The entries sit beside the whole results, in `<name>.rows.json`.
    expect(Object.keys(JSON.parse(readFileSync(join(dir, "cache.rows.json"), "utf8")).rows)).toEqual(["/a"]);
  });
});

describe("discoverExtensions with the cache", () => {
  test("the second run finds the same; an edit of the same size with the old mtime put back is still seen (ctime)", () => {
    const repo = tempDir("yoke-dcache-repo-");
    writeTree(repo, {
      ".git/HEAD": "x",
      ".claude/skills/one/SKILL.md": "---\ndescription: first\n---\n",
      ".claude/commands/go.md": "---\ndescription: go on\n---\n",
      ".claude/skills/broken/SKILL.md": "---\na: [\n---\n",
    });
    const file = join(repo, ".claude/skills/one/SKILL.md");
    // Settled: written "long ago".
    const old = new Date(Date.now() - 60_000);
    for (const f of [file, join(repo, ".claude/commands/go.md"), join(repo, ".claude/skills/broken/SKILL.md")]) utimesSync(f, old, old);
    const path = join(tempDir("yoke-dcache-state-"), "c.json");
    const run = () => {
      const cache = openDiscoveryCache(path, "v1");
      const d = discoverExtensions({ cwd: repo, userDir: "/nonexistent", cache });
      cache.save();
      return d;
    };
    const plain = discoverExtensions({ cwd: repo, userDir: "/nonexistent" });
    expect(run()).toEqual(plain);
    expect(run()).toEqual(plain); // from the cache: same entries, same problem
    const before = statSync(file);
    writeFileSync(file, "---\ndescription: other\n---\n"); // same size
    utimesSync(file, before.atime, before.mtime);
    expect(run().commands.find((c) => c.name === "one")!.description).toBe("other");
  });
});

describe("the whole result of the run before (issue 14 point 7: the usual start reads no skill or command file)", () => {
  /** A project and a home with skills, commands and a broken file, and a clock ten seconds on: every read is settled. */
  const setup = () => {
    const repo = tempDir("yoke-dwhole-");
    const home = tempDir("yoke-dwhole-home-");
    writeTree(repo, {
      ".git/HEAD": "x",
      ".claude/skills/tidy/SKILL.md": "---\ndescription: Tidies v1\nallowed-tools: Read\n---\nBODY\n",
      ".claude/skills/ship/SKILL.md": "---\ndescription: Ships\n---\n",
      ".claude/skills/empty/README.md": "no SKILL.md yet\n",
      ".claude/skills/broken/SKILL.md": "---\n- just\n- a list\n---\n",
      ".claude/commands/go.md": "---\ndescription: Goes\n---\n",
      ".claude/commands/ops/deploy.md": "Deploys\n",
      ".claude/commands/ship.md": "loses to the skill\n",
    });
    writeTree(home, { ".claude/commands/mine.md": "Mine\n" });
    const o: DiscoverExtensionsOptions = { cwd: repo, userDir: join(home, ".claude") };
    const path = join(tempDir("yoke-dwhole-state-"), "c.json");
    let reads = 0;
    const read = (f: string) => {
      reads++;
      return readFileSync(f, "utf8");
    };
    const run = (clock = () => Date.now() + 10_000) => {
      const cache = openDiscoveryCache(path, "v1", clock);
      reads = 0;
      const d = discoverExtensions({ ...o, cache }, read);
      cache.save();
      return { d, reads };
    };
    return { repo, home, path, run, plain: () => discoverExtensions(o) };
  };

  test("the second start reads no file and finds exactly what a start without the cache finds, the broken file's problem included", () => {
    const { run, plain, path } = setup();
    // A first start tries each candidate without a stat first: 7 files and the folder `empty` without a SKILL.md.
    expect(run().reads).toBe(8);
    // Without the per-file entries: the whole result alone answers (no lookup, no read).
    rmSync(path.replace(/\.json$/, ".rows.json"));
    const again = run();
    expect(again.reads).toBe(0);
    expect(again.d).toEqual(plain());
    expect(again.d.problems.map((p) => p.file)).toEqual([expect.stringContaining("broken/SKILL.md")]);
  });

  // Each change alone, against a whole result that held the run before: the cached start equals an uncached one.
  type Found = ReturnType<typeof discoverExtensions>;
  const changes: Array<[string, (repo: string, home: string) => void, (d: Found, repo: string) => void]> = [
    [
      "a skill edited in the same second, same size, its mtime put back",
      (repo) => {
        const f = join(repo, ".claude/skills/tidy/SKILL.md");
        const before = statSync(f);
        writeFileSync(f, "---\ndescription: Tidies v2\nallowed-tools: Read\n---\nBODY\n");
        utimesSync(f, before.atime, before.mtime);
      },
      (d) => expect(d.commands.find((c) => c.name === "tidy")!.description).toBe("Tidies v2"),
    ],
    [
      "a skill folder renamed",
      (repo) => renameSync(join(repo, ".claude/skills/tidy"), join(repo, ".claude/skills/neat")),
      (d) => expect(d.commands.map((c) => c.name)).toContain("neat"),
    ],
    [
      "a new nested commands folder",
      (repo) => writeTree(repo, { ".claude/commands/ops/new/deep.md": "Deep\n" }),
      (d) => expect(d.commands.find((c) => c.name === "deep")!.aliases).toEqual(["ops:new:deep"]),
    ],
    [
      "a skill deleted",
      (repo) => rmSync(join(repo, ".claude/skills/ship"), { recursive: true }),
      (d) => expect(d.commands.find((c) => c.name === "ship")!.kind).toBe("command"),
    ],
    [
      "SKILL.md added to a folder that had none",
      (repo) => writeFileSync(join(repo, ".claude/skills/empty/SKILL.md"), "---\ndescription: Now there\n---\n"),
      (d) => expect(d.commands.map((c) => c.name)).toContain("empty"),
    ],
    [
      "a SKILL.md deleted, its folder kept",
      (repo) => rmSync(join(repo, ".claude/skills/tidy/SKILL.md")),
      (d) => expect(d.commands.map((c) => c.name)).not.toContain("tidy"),
    ],
    [
      "the broken file mended",
      (repo) => writeFileSync(join(repo, ".claude/skills/broken/SKILL.md"), "---\ndescription: Mended\n---\n"),
      (d) => expect(d.problems).toEqual([]),
    ],
    [
      "a good file broken",
      (repo) => writeFileSync(join(repo, ".claude/commands/go.md"), "---\n- a list\n---\n"),
      (d, repo) => expect(d.problems.map((p) => p.file)).toContain(join(repo, ".claude/commands/go.md")),
    ],
    [
      "a folder's file replaced by a link to another file",
      (repo) => {
        writeTree(repo, { "elsewhere.md": "---\ndescription: Linked\n---\n" });
        rmSync(join(repo, ".claude/commands/go.md"));
        symlinkSync(join(repo, "elsewhere.md"), join(repo, ".claude/commands/go.md"));
      },
      (d) => expect(d.commands.find((c) => c.name === "go")!.description).toBe("Linked"),
    ],
    [
      "a personal skills folder made where there was none",
      (_repo, home) => writeTree(home, { ".claude/skills/own/SKILL.md": "---\ndescription: Own\n---\n" }),
      (d) => expect(d.commands.find((c) => c.name === "own")!.source).toBe("user"),
    ],
  ];
  for (const [name, change, check] of changes)
    test(`seen on the next start: ${name}`, () => {
      const { repo, home, run, plain } = setup();
      run();
      expect(run().reads).toBe(0);
      change(repo, home);
      const next = run().d;
      expect(next).toEqual(plain());
      check(next, repo);
      // And the start after it, from what this one remembered.
      expect(run().d).toEqual(plain());
    });

  test("a file read within two seconds of its last write (real clock) is read again, and no whole result is kept from it", () => {
    const { run } = setup();
    run(() => Date.now());
    expect(run(() => Date.now()).reads).toBe(7);
  });

  // A first start reads without a stat before each read and stats at save(), after the first request: a change between
  // the read and that stat must never be kept as the file's entry (real clock; the files are two seconds old first).
  describe("a first start's files changed between the read and the save", () => {
    const changes: Array<[string, (repo: string) => void]> = [
      [
        "edited, same size, its mtime put back",
        (repo) => {
          const f = join(repo, ".claude/skills/tidy/SKILL.md");
          const before = statSync(f);
          writeFileSync(f, "---\ndescription: Tidies v2\nallowed-tools: Read\n---\nBODY\n");
          utimesSync(f, before.atime, before.mtime);
        },
      ],
      ["deleted", (repo) => rmSync(join(repo, ".claude/skills/ship/SKILL.md"))],
      ["made where there was none", (repo) => writeFileSync(join(repo, ".claude/skills/empty/SKILL.md"), "---\ndescription: Now there\n---\n")],
      ["replaced by another file (a rename over it)", (repo) => {
        writeFileSync(join(repo, "other.md"), "---\ndescription: Other\n---\n");
        renameSync(join(repo, "other.md"), join(repo, ".claude/commands/go.md"));
      }],
    ];
    for (const [name, change] of changes)
      test(name, async () => {
        const { repo, home, path, plain } = setup();
        const files = [".claude/skills/tidy/SKILL.md", ".claude/skills/ship/SKILL.md", ".claude/commands/go.md"].map((f) => join(repo, f));
        const newest = Math.max(...files.map((f) => statSync(f).ctimeMs), statSync(join(home, ".claude/commands/mine.md")).ctimeMs);
        await waitFor(() => Date.now() > newest + 2100, "the files to be two seconds old");
        const o = { cwd: repo, userDir: join(home, ".claude") };
        const cache = openDiscoveryCache(path, "v1");
        const first = discoverExtensions({ ...o, cache });
        change(repo);
        cache.save();
        expect(first).not.toEqual(plain());
        // The next start (a clock ten seconds on: every read from now on is settled) finds what the files say now.
        const next = openDiscoveryCache(path, "v1", () => Date.now() + 10_000);
        expect(discoverExtensions({ ...o, cache: next })).toEqual(plain());
        next.save();
        expect(discoverExtensions({ ...o, cache: openDiscoveryCache(path, "v1", () => Date.now() + 10_000) })).toEqual(plain());
      });
  });

  test("other folders (another cwd, a plugin more) never take a whole result made for these", () => {
    const { repo, run } = setup();
    run();
    const path = join(tempDir("yoke-dwhole-state-"), "c.json");
    const cache = openDiscoveryCache(path, "v1", () => Date.now() + 10_000);
    const plug = tempDir("yoke-dwhole-plug-");
    writeTree(plug, { "commands/hi.md": "Hi\n" });
    const roots = [{ source: "plugin" as const, skillsDirs: [], commandsDirs: [join(plug, "commands")], plugin: { name: "p", root: plug, dataDir: plug } }];
    const o = { cwd: repo, userDir: "/nonexistent", plugins: roots, cache };
    discoverExtensions(o);
    cache.save();
    const second = openDiscoveryCache(path, "v1", () => Date.now() + 10_000);
    const d = discoverExtensions({ ...o, plugins: [{ ...roots[0]!, plugin: { name: "q", root: plug, dataDir: plug } }], cache: second });
    expect(d.commands.map((c) => c.name)).toContain("q:hi");
    expect(d.commands.map((c) => c.name)).not.toContain("p:hi");
  });
});

test("the Skill tool's written-out JSON Schema is exactly what zod makes of its input", async () => {
  const { SKILL_JSON_SCHEMA, skillInput } = await import("../../src/extension/skill-tool.ts");
  const { toolJsonSchema } = await import("../../src/tool/define-tool.ts");
  expect(SKILL_JSON_SCHEMA).toEqual(toolJsonSchema(skillInput()));
});

// A cache file is yoke's own memo, never an authority (red-team of issue 21's start-up work): whatever it says, a
// start finds what a start without it finds. It may only save reads of files discovery itself listed.
describe("a cache file that lies is no cache", () => {
  const setup = () => {
    const repo = tempDir("yoke-dlie-");
    writeTree(repo, {
      ".git/HEAD": "x",
      ".claude/skills/tidy/SKILL.md": "---\ndescription: Tidies\nallowed-tools: Read\n---\nBODY\n",
      ".claude/commands/go.md": "---\ndescription: Goes\n---\n",
    });
    const o: DiscoverExtensionsOptions = { cwd: repo, userDir: "/nonexistent" };
    const path = join(tempDir("yoke-dlie-state-"), "c.json");
    const rowsPath = path.replace(/\.json$/, ".rows.json");
    const run = () => {
      const cache = openDiscoveryCache(path, "v1", () => Date.now() + 10_000);
      const d = discoverExtensions({ ...o, cache });
      cache.save();
      return d;
    };
    return { repo, path, rowsPath, run, plain: () => discoverExtensions(o) };
  };
  /** Every command of a cache document (whole results and per-file entries). */
  const forge = (doc: any, f: (c: any) => void) => {
    for (const s of Object.values<any>(doc.snaps ?? {})) for (const c of s.d.commands) f(c);
    for (const r of Object.values<any>(doc.rows ?? {})) if (r.r.kind) f(r.r);
  };
  const lies: Array<[string, (c: any) => void]> = [
    ["a project skill said to be the user's (it would grant in an untrusted folder)", (c) => (c.source = "user")],
    ["a file outside the scanned folders", (c) => (c.file = "/etc/passwd")],
    ["a skill's folder elsewhere", (c) => c.baseDir !== null && (c.baseDir = "/etc")],
    ["another name", (c) => (c.name = `${c.name}-x`)],
    ["a plugin it does not come from", (c) => (c.plugin = { name: "evil", root: "/etc", dataDir: "/etc" })],
    ["not an entry at all", (c) => (c.allowedTools = "Bash")],
  ];
  for (const [name, lie] of lies)
    test(`whole result and per-file entries: ${name}`, () => {
      const { path, rowsPath, run, plain } = setup();
      run();
      for (const p of [path, rowsPath]) {
        const doc = JSON.parse(readFileSync(p, "utf8"));
        forge(doc, lie);
        writeFileSync(p, JSON.stringify(doc));
      }
      expect(run()).toEqual(plain());
      // The per-file entries alone (the whole result gone) lie too: still what the files say.
      rmSync(path);
      const doc = JSON.parse(readFileSync(rowsPath, "utf8"));
      forge(doc, lie);
      writeFileSync(rowsPath, JSON.stringify(doc));
      expect(run()).toEqual(plain());
    });

  test("a whole result naming problems or commands of files it was not made from, or not a result", () => {
    const { path, run, plain } = setup();
    run();
    const doc = JSON.parse(readFileSync(path, "utf8"));
    const snap = Object.values<any>(doc.snaps)[0];
    snap.d.problems.push({ file: "/etc/shadow", message: "x" });
    writeFileSync(path, JSON.stringify(doc));
    expect(run()).toEqual(plain());
    for (const d of [null, {}, { commands: "x", problems: [] }]) {
      const again = JSON.parse(readFileSync(path, "utf8"));
      Object.values<any>(again.snaps)[0].d = d;
      writeFileSync(path, JSON.stringify(again));
      expect(run()).toEqual(plain());
    }
  });

  test("a cache file another user owns, or others may write, is not read", () => {
    const { path, rowsPath, run, plain } = setup();
    run();
    const lie = () => {
      for (const p of [path, rowsPath]) {
        const doc = JSON.parse(readFileSync(p, "utf8"));
        forge(doc, (c) => (c.allowedTools = ["Bash(*)"]));
        writeFileSync(p, JSON.stringify(doc));
      }
    };
    lie();
    for (const p of [path, rowsPath]) chmodSync(p, 0o666);
    expect(run()).toEqual(plain());
    // Rewritten by this run: its own, 0600.
    expect(statSync(path).mode & 0o777).toBe(0o600);
    if (process.getuid?.() === 0) {
      lie();
      for (const p of [path, rowsPath]) chownSync(p, 65534, 65534);
      expect(run()).toEqual(plain());
    }
  });
});
