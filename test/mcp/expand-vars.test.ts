// `${VAR}` / `${VAR:-default}` in MCP config strings (contracts §6.6; Claude Code's MCP docs "Environment variable
// expansion in .mcp.json"). Beyond Claude Code 2.1.332 (observed: `${A:-${B}}` reaches the server as `${B}`, and
// `${B` or `${}` pass through): nested defaults expand, malformed text is an error.
import { describe, expect, test } from "bun:test";
import { expandText, MAX_DEPTH } from "../../src/mcp/expand-vars.ts";

const env = { B: "bee", C: "sea", SET: "set", EMPTY: "" };
const ok = (text: string, want: string, missing: string[] = []) => expect(expandText(text, env)).toEqual({ text: want, missing });

describe("nested defaults", () => {
  test("a default that is itself a variable", () => ok("${UNSET:-${B}}", "bee"));
  test("a default with text around a variable", () => ok("pre-${UNSET:-x${B}y}-post", "pre-xbeey-post"));
  test("three levels", () => ok("${U1:-${U2:-${C}}}", "sea"));
  test("a set variable wins; its default's missing variables do not count", () => ok("${SET:-${UNSET_TOO}}", "set"));
  test("an empty variable takes its default (:-)", () => ok("${EMPTY:-${B}}", "bee"));
  test("a missing variable inside the used default is missing", () => ok("${U1:-${U2}}", "${U2}", ["U2"]));
  test("an empty default", () => ok("${U1:-${U2:-}}", ""));
  test("two expressions in one default", () => ok("${U:-${B}:${C}}", "bee:sea"));
  test(`up to ${MAX_DEPTH} deep; deeper is an error`, () => {
    const nest = (n: number): string => (n === 0 ? "${B}" : `\${U${n}:-${nest(n - 1)}}`);
    ok(nest(MAX_DEPTH - 1), "bee");
    expect(expandText(nest(MAX_DEPTH), env).error).toContain(`nested more than ${MAX_DEPTH} deep`);
  });
});

describe("what was already so stays so", () => {
  test("plain text and single expressions", () => {
    ok("no vars", "no vars");
    ok("${B}/x", "bee/x");
    ok("${UNSET:-d}", "d");
    ok("${EMPTY}", "");
    ok("${UNSET}", "${UNSET}", ["UNSET"]);
    ok("$B and $$ and a } and {x}", "$B and $$ and a } and {x}");
  });
  test("shell parameter syntax a command means for its shell is kept as written", () => {
    for (const t of ["${HOME%/}", "${#arr}", "${1}", "${@}", "${x/a/b}", "${x:=y}", "${x-y}", "${a[0]}"]) ok(`sh ${t}`, `sh ${t}`);
  });
});

describe("malformed text is an error, the text left unchanged", () => {
  const bad: Array<[string, string]> = [
    ["${B", "unclosed"],
    ["x ${B:-y", "unclosed"],
    ["${U:-${B}", "unclosed"],
    ["${U:-${B:-${C}}", "unclosed"],
    ["${", "unclosed"],
    ["${HOME%/", "unclosed"],
    ["${}", "empty variable name"],
    ["${:-x}", "empty variable name"],
    ["${U:-${}}", "empty variable name"],
    ["${ B}", "must be followed by a variable name"],
    ["${.x}", "must be followed by a variable name"],
  ];
  for (const [text, why] of bad)
    test(JSON.stringify(text), () => {
      const r = expandText(text, env);
      expect(r.error).toContain(why);
      expect(r.error).toContain(JSON.stringify(text));
      expect(r.text).toBe(text);
    });
});
