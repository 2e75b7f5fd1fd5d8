/**
 * A bundler plugin of build.ts: the MCP SDK's types.js builds every schema of the protocol (~170 zod schemas, most for
 * servers, sampling, elicitation and tasks) when it is imported, ~16 ms of a start's CPU whenever an MCP server is
 * configured. In the binary each top-level schema becomes a stand-in that builds the real one on its first use and
 * passes everything through to it, so a run builds those its messages need (issue 21 point 3). The SDK is unchanged
 * otherwise; source runs use it as published.
 */
import { readFileSync } from "node:fs";

const TYPES_JS = /@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]types\.js$/;

/** Prepended to types.js: the stand-in. Its identity is stable; property reads, `in` and prototype go to the schema. */
const LAZY = `const __yokeLazySchema = (make) => {
  let real;
  const get = () => (real ??= make());
  return new Proxy({}, {
    get: (_, k) => Reflect.get(get(), k),
    has: (_, k) => Reflect.has(get(), k),
    set: (_, k, v) => Reflect.set(get(), k, v),
    getPrototypeOf: () => Object.getPrototypeOf(get()),
  });
};
`;

/**
 * `src` with each top-level `const X = <expr>;` / `export const X = <expr>;` whose expression builds a zod schema
 * (`z.…` or another schema's method) made lazy. A statement starts at column 0 and runs until the next line that starts
 * at column 0 with anything but a closing bracket (tsc's output layout); other statements are left as they are. Pure.
 */
export function lazySchemas(src: string): string {
  const lines = src.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    const head = /^((?:export )?const \w+ = )(.*)$/.exec(lines[i]!);
    if (!head) {
      out.push(lines[i++]!);
      continue;
    }
    let end = i + 1;
    while (end < lines.length && /^[\s})\]]/.test(lines[end]!) && lines[end] !== "") end++;
    const body = [head[2]!, ...lines.slice(i + 1, end)].join("\n").trimEnd();
    if (body.endsWith(";") && /^(?:z|\w+Schema)\s*\./.test(body)) out.push(`${head[1]}__yokeLazySchema(() => ${body.slice(0, -1)});`);
    else out.push(...lines.slice(i, end));
    i = end;
  }
  const text = out.join("\n");
  const firstImportEnd = text.indexOf("\n", text.indexOf("import ")) + 1;
  return text.slice(0, firstImportEnd) + LAZY + text.slice(firstImportEnd);
}

/** The plugin: types.js of @modelcontextprotocol/sdk goes through lazySchemas. */
export function mcpLazySchemas(): Bun.BunPlugin {
  return {
    name: "yoke-mcp-lazy-schemas",
    setup(build) {
      build.onLoad({ filter: TYPES_JS }, (args) => ({ contents: lazySchemas(readFileSync(args.path, "utf8")), loader: "js" }));
    },
  };
}
