import { statSync } from "node:fs";
import type { Readable } from "node:stream";
import { killGroup, spawnProcess } from "../../../util/subprocess.ts";
import { typeGlobs } from "./file-filter.ts";
import { type FileHits, type GrepEngine, type GrepQuery, invalidRegexMessage, MAX_CONTENT_LINES, tooManyLinesMessage } from "./types.ts";

/** Bytes of a line ripgrep prints; above MAX_LINE_CHARS in any encoding, so our own cut decides. */
const RG_MAX_COLUMNS = 4096;

/** ripgrep arguments for a query; `--null` puts a NUL after every path so any file name parses. */
export function rgArgs(q: GrepQuery): string[] {
  const args = [
    "--no-config",
    "--hidden",
    "--glob",
    "!.git",
    "--no-require-git",
    "--no-ignore-global",
    "--null",
    "--color",
    "never",
    "--no-heading",
    "-H",
  ];
  if (q.mode === "files_with_matches") args.push("--files-with-matches");
  else if (q.mode === "count") args.push("--count");
  else {
    args.push("-n", "--max-columns", String(RG_MAX_COLUMNS), "--max-columns-preview");
    if (q.before) args.push("-B", String(q.before));
    if (q.after) args.push("-A", String(q.after));
  }
  if (q.ignoreCase) args.push("-i");
  if (q.onlyMatching && q.mode === "content") args.push("-o");
  if (q.multiline) args.push("-U", "--multiline-dotall");
  for (const g of q.globs) args.push("--glob", g);
  if (q.type) args.push("--type", q.type);
  args.push("-e", q.pattern, "--", q.root);
  return args;
}

function parse(out: string, q: GrepQuery): FileHits[] {
  const byPath = new Map<string, FileHits>();
  const get = (p: string) => {
    let h = byPath.get(p);
    if (!h) byPath.set(p, (h = { path: p, count: 0, lines: [] }));
    return h;
  };
  if (q.mode === "files_with_matches") {
    for (const p of out.split("\0")) {
      const clean = p.replace(/^\n+/, "");
      if (clean) get(clean).count = 1;
    }
    return [...byPath.values()];
  }
  for (const line of out.split("\n")) {
    if (!line || line === "--") continue;
    const z = line.indexOf("\0");
    if (z < 0) continue;
    const h = get(line.slice(0, z));
    const rest = line.slice(z + 1);
    if (q.mode === "count") {
      h.count = Number(rest);
      continue;
    }
    const sep = rest.search(/[:-]/);
    const match = rest[sep] === ":";
    if (match && q.onlyMatching && sep === rest.length - 1) continue;
    h.lines.push({ n: Number(rest.slice(0, sep)), text: rest.slice(sep + 1), match });
    if (match) h.count++;
  }
  return [...byPath.values()];
}

/**
 * Reads rg's stdout, calling `stop` and rejecting once it holds more than `maxLines` lines. Stats each
 * file as its path arrives, so the mtime sort costs nothing after rg exits.
 */
async function readBounded(
  stream: Readable,
  maxLines: number,
  stop: () => void,
  filesMode: boolean,
  mtimes: Map<string, number>,
): Promise<string> {
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let lines = 0;
  let carry = "";
  const sep = filesMode ? "\0" : "\n";
  for await (const chunk of stream as AsyncIterable<Uint8Array>) {
    const text = decoder.decode(chunk, { stream: true });
    parts.push(text);
    const records = (carry + text).split(sep);
    carry = records.pop()!;
    for (const r of records) {
      const file = filesMode ? r.replace(/^\n+/, "") : r.slice(0, Math.max(0, r.indexOf("\0")));
      if (file && !mtimes.has(file)) {
        let t = 0;
        try {
          t = statSync(file).mtimeMs;
        } catch {}
        mtimes.set(file, t);
      }
    }
    if (maxLines !== Number.POSITIVE_INFINITY) {
      for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
      if (lines > maxLines) {
        stop();
        throw new Error(tooManyLinesMessage());
      }
    }
  }
  parts.push(decoder.decode());
  return parts.join("");
}

/**
 * Drives the `rg` binary at `rgPath`. Resolves to the hits; rejects with a model-facing Error when rg
 * reports a bad pattern or type, or with the abort reason.
 */
export function createRgEngine(rgPath: string, env: Record<string, string>): GrepEngine {
  return async (q) => {
    // rg knows more types than we do; refusing the same ones keeps both engines' answers the same.
    if (q.type) typeGlobs(q.type);
    if (q.signal.aborted) throw q.signal.reason ?? new Error("aborted");
    const proc = spawnProcess([rgPath, ...rgArgs(q)], { env });
    const kill = () => {
      if (proc.pid) void killGroup(proc.pid, 0);
    };
    const exited = new Promise<number>((res) => {
      proc.once("error", () => res(2));
      proc.once("close", (code) => res(code ?? 2));
    });
    const errText = (async () => {
      let t = "";
      for await (const c of proc.stderr! as AsyncIterable<Buffer>) if (t.length < 65_536) t += c.toString("utf8");
      return t;
    })();
    const mtimes = new Map<string, number>();
    q.signal.addEventListener("abort", kill, { once: true });
    try {
      const [out, err, code] = await Promise.all([
        readBounded(proc.stdout!, q.mode === "content" ? MAX_CONTENT_LINES : Number.POSITIVE_INFINITY, kill, q.mode === "files_with_matches", mtimes),
        errText,
        exited,
      ]);
      if (q.signal.aborted) throw q.signal.reason ?? new Error("aborted");
      if (code === 2 && !out) {
        if (/regex parse error|error parsing regex/i.test(err)) {
          const reason = err.split("\n").filter((l) => /^error:/i.test(l.trim())).join(" ").replace(/^\s*error:\s*/i, "");
          throw new Error(invalidRegexMessage(q.pattern, reason || err.trim()));
        }
        if (err.trim()) throw new Error(`ripgrep failed: ${err.trim().split("\n").slice(0, 5).join("\n")}`);
      }
      const hits = parse(out, q);
      for (const h of hits) h.mtimeMs = mtimes.get(h.path);
      return hits;
    } finally {
      q.signal.removeEventListener("abort", kill);
    }
  };
}
