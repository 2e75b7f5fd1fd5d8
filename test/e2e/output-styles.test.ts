// Issue 14 point 5 end to end: the outputStyle setting and .claude/output-styles change the system prompt.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { yokeBin } from "../helpers/binary.ts";
import { writeTree } from "../helpers/tmp.ts";
import { project, runWith, say, systemText } from "./hooks-helpers.ts";

// Each test runs the binary (some several times); on a loaded machine one run can take seconds.
setDefaultTimeout(60_000);

beforeAll(() => {
  yokeBin();
});

describe("output styles (contracts §6.5)", () => {
  test("a project style named by outputStyle ends the system prompt and drops the coding guidance; init names it", async () => {
    const cwd = project({ outputStyle: "Reviewer" });
    writeTree(cwd, { ".claude/output-styles/reviewer.md": "---\nname: Reviewer\ndescription: Reviews only\n---\nREVIEWER-STYLE: only review, never edit.\n" });
    const r = await runWith(cwd, [say("ok")], ["--output-format", "stream-json", "--verbose"]);
    expect(r.code).toBe(0);
    const sys = systemText(r.requests[0]!);
    expect(sys.trimEnd().endsWith("# Output style: Reviewer\nREVIEWER-STYLE: only review, never edit.")).toBe(true);
    expect(sys).not.toContain("# How to work");
    expect(r.lines!.find((l) => l.subtype === "init").output_style).toBe("Reviewer");
  });

  test("a built-in style keeps the coding guidance; an unknown name is said once and the default applies", async () => {
    const a = await runWith(project({ outputStyle: "explanatory" }), [say("ok")], []);
    expect(systemText(a.requests[0]!)).toContain("# Output style: Explanatory");
    expect(systemText(a.requests[0]!)).toContain("# How to work");
    const b = await runWith(project({ outputStyle: "Nope" }), [say("ok")], []);
    expect(b.code).toBe(0);
    expect(b.stderr.match(/outputStyle "Nope"/g)).toHaveLength(1);
    expect(systemText(b.requests[0]!)).not.toContain("# Output style");
  });
});
