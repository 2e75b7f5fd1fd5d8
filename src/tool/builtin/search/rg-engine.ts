import { statSync } from "node:fs";
import { killGroup, spawnProcess } from "../../../util/subprocess.ts";
import { typeGlobs } from "./file-filter.ts";
import { keptLine } from "./collect.ts";
import { type FileHits, type GrepEngine, type GrepQuery, invalidRegexMessage } from "./types.ts";

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

/** Longest record kept whole; rg's --max-columns keeps real ones far below it. */
const MAX_RECORD_CHARS = 1 << 20;

/**
 * Parses rg's output as it streams: records are NUL-ended paths (files mode) or `path\0rest` lines. rg
 * prints each file's results together, so a file is complete when the next path starts; it goes to
 * `onFile` with at most `q.maxLines` lines kept (the rest counted). Holds one file and one record at a time.
 */
function streamParser(q: GrepQuery, onFile: (h: FileHits) => void) {
  const filesMode = q.mode === "files_with_matches";
  const gaps = q.before > 0 || q.after > 0;
  let cur: FileHits | null = null;
  let prevN = -1;
  const flush = () => {
    if (cur) onFile(cur);
    cur = null;
    prevN = -1;
  };
  const mtime = (file: string) => {
    try {
      return statSync(file).mtimeMs;
    } catch {
      return 0;
    }
  };
  const start = (file: string) => {
    if (cur?.path === file) return cur;
    flush();
    return (cur = { path: file, count: 0, lines: [], entries: 0, mtimeMs: mtime(file) });
  };
  const record = (r: string) => {
    if (filesMode) {
      const clean = r.replace(/^\n+/, "");
      if (clean) start(clean).count = 1;
      return;
    }
    if (!r || r === "--") return;
    const z = r.indexOf("\0");
    if (z < 0) return;
    const h = start(r.slice(0, z));
    const rest = r.slice(z + 1);
    if (q.mode === "count") {
      h.count = Number(rest);
      return;
    }
    const sep = rest.search(/[:-]/);
    const match = rest[sep] === ":";
    if (match && q.onlyMatching && sep === rest.length - 1) return;
    const n = Number(rest.slice(0, sep));
    if (match) h.count++;
    if (gaps && prevN !== -1 && n > prevN + 1) h.entries!++;
    h.entries!++;
    prevN = n;
    if (h.lines.length < q.maxLines) h.lines.push({ n, text: keptLine(rest.slice(sep + 1)), match });
  };
  let carry = "";
  const sepChar = filesMode ? "\0" : "\n";
  return {
    push(text: string) {
      let from = 0;
      for (let i = text.indexOf(sepChar); i !== -1; i = text.indexOf(sepChar, from)) {
        record(carry + text.slice(from, i));
        carry = "";
        from = i + 1;
      }
      if (carry.length < MAX_RECORD_CHARS) carry += text.slice(from, from + MAX_RECORD_CHARS - carry.length);
    },
    end() {
      if (carry) record(carry);
      carry = "";
      flush();
    },
  };
}

/**
 * Drives the `rg` binary at `rgPath`. Resolves to the hits; rejects with a model-facing Error when rg
 * reports a bad pattern or type, or with the abort reason.
 */
export function createRgEngine(rgPath: string, env: Record<string, string>): GrepEngine {
  return async (q, onFile) => {
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
    const parser = streamParser(q, onFile);
    let sawOutput = false;
    const out = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout! as AsyncIterable<Uint8Array>) {
        if (chunk.length) sawOutput = true;
        parser.push(decoder.decode(chunk, { stream: true }));
      }
      parser.push(decoder.decode());
      parser.end();
    })();
    q.signal.addEventListener("abort", kill, { once: true });
    try {
      const [, err, code] = await Promise.all([out, errText, exited]);
      if (q.signal.aborted) throw q.signal.reason ?? new Error("aborted");
      if (code === 2 && !sawOutput) {
        if (/regex parse error|error parsing regex/i.test(err)) {
          const reason = err.split("\n").filter((l) => /^error:/i.test(l.trim())).join(" ").replace(/^\s*error:\s*/i, "");
          throw new Error(invalidRegexMessage(q.pattern, reason || err.trim()));
        }
        if (err.trim()) throw new Error(`ripgrep failed: ${err.trim().split("\n").slice(0, 5).join("\n")}`);
      }
    } finally {
      q.signal.removeEventListener("abort", kill);
    }
  };
}
