/**
 * `${VAR}` and `${VAR:-default}` in MCP server config strings (command, args, env, cwd, url, headers), as Claude Code
 * expands them in .mcp.json. Beyond Claude Code 2.1.332 (observed: one regex pass, so `${A:-${B}}` reaches the server
 * as the text `${B}` and `${B` or `${}` pass through as written): a default may itself hold `${...}` expressions,
 * nested up to MAX_DEPTH, expanded only when the default is used; and malformed text (an unclosed `${`, an empty or
 * invalid name) is an error the caller reports naming the file, server and field. Shell parameter syntax a command
 * may mean for its own shell (`${HOME%/}`, `${#x}`, `${1}`) is kept as written. Pure; never throws.
 */
export const MAX_DEPTH = 8;

export type Expansion = {
  text: string;
  /** Variables that are unset, have no default and were needed: the text keeps `${NAME}` for each. */
  missing: string[];
  /** Why the text is malformed; `text` is then the input unchanged. */
  error?: string;
};

class Malformed extends Error {}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
/** The first character of a shell parameter that is no name (`${#x}`, `${1}`, `${@}`): the text is the shell's. */
const SHELL_SPECIAL = /^[#@*!?$0-9-]/;

export function expandText(text: string, env: Record<string, string | undefined>): Expansion {
  if (!text.includes("${")) return { text, missing: [] };
  /** Reads plain text and expressions from `i`; inside a default (`depth` > 0) up to its unnested `}`. */
  const parse = (i: number, depth: number, missing: string[]): [string, number] => {
    let out = "";
    while (i < text.length) {
      if (depth > 0 && text[i] === "}") return [out, i];
      if (text[i] === "$" && text[i + 1] === "{") {
        const [v, next] = expression(i, depth, missing);
        out += v;
        i = next;
      } else out += text[i++];
    }
    if (depth > 0) throw new Malformed(`unclosed "\${" in ${JSON.stringify(text)}`);
    return [out, i];
  };
  /** One `${...}` starting at `start`; returns its value and the index after its `}`. */
  const expression = (start: number, depth: number, missing: string[]): [string, number] => {
    if (depth >= MAX_DEPTH) throw new Malformed(`"\${" nested more than ${MAX_DEPTH} deep in ${JSON.stringify(text)}`);
    let i = start + 2;
    const name = NAME.exec(text.slice(i))?.[0] ?? "";
    i += name.length;
    if (i >= text.length) throw new Malformed(`unclosed "\${" in ${JSON.stringify(text)}`);
    if (text[i] === "}" || text.startsWith(":-", i)) {
      if (!name) throw new Malformed(`empty variable name in ${JSON.stringify(text)}`);
      const set = env[name];
      if (text[i] === "}") {
        if (set === undefined) missing.push(name);
        return [set ?? text.slice(start, i + 1), i + 1];
      }
      // The default is read (and checked) whether or not it is used; its missing variables count only if it is.
      const own: string[] = [];
      const [def, end] = parse(i + 2, depth + 1, own);
      if (set !== undefined && set !== "") return [set, end + 1];
      missing.push(...own);
      return [def, end + 1];
    }
    if (!name && !SHELL_SPECIAL.test(text.slice(i))) throw new Malformed(`"\${" must be followed by a variable name in ${JSON.stringify(text)}`);
    // Shell syntax (`${HOME%/}`, `${#x}`): kept as written, up to its closing brace.
    let open = 1;
    for (; i < text.length; i++) {
      if (text[i] === "{") open++;
      else if (text[i] === "}" && --open === 0) return [text.slice(start, i + 1), i + 1];
    }
    throw new Malformed(`unclosed "\${" in ${JSON.stringify(text)}`);
  };
  const missing: string[] = [];
  try {
    return { text: parse(0, 0, missing)[0], missing: [...new Set(missing)] };
  } catch (e) {
    if (e instanceof Malformed) return { text, missing: [], error: e.message };
    throw e;
  }
}
