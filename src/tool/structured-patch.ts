/**
 * Line diff in the shape of jsdiff's `structuredPatch` hunks, which is what Claude Code puts in
 * Write/Edit `tool_response.structuredPatch` (contracts §1.4). Our own compact Myers: common prefix and
 * suffix are trimmed first (an edit of a 1M-line file costs only its changed middle), and the search
 * gives up past a work budget, reporting the whole middle as replaced rather than taking seconds.
 */

export type Hunk = {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** Each line prefixed with ' ', '-' or '+'; `\ No newline at end of file` follows a line lacking one. */
  lines: string[];
};

const NO_EOL = "\\ No newline at end of file";
/** Upper bound on Myers inner-loop steps before falling back to "middle replaced". */
const WORK_BUDGET = 5_000_000;

type Lines = { lines: string[]; noEol: boolean };

function splitLines(text: string): Lines {
  if (text === "") return { lines: [], noEol: false };
  const lines = text.split("\n");
  const noEol = !text.endsWith("\n");
  if (!noEol) lines.pop();
  return { lines, noEol };
}

/** A change: old[oldPos, oldPos+oldLen) replaced by new[newPos, newPos+newLen). */
type Block = { oldPos: number; oldLen: number; newPos: number; newLen: number };

/** Myers shortest edit script over interned line ids. null when the work budget runs out. */
function myers(a: Int32Array, b: Int32Array): Block[] | null {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let work = 0;
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    // Window k ∈ [-(d+1), d+1] of v as it was when step d began, for backtracking.
    trace.push(v.slice(off - d - 1, off + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!) ? v[off + k + 1]! : v[off + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
        work++;
      }
      v[off + k] = x;
      work++;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
    if (work > WORK_BUDGET) return null;
  }
  // Backtrack from (n, m), collecting single-line moves, then merge into blocks.
  const moves: Array<{ del: boolean; x: number; y: number }> = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const w = trace[d]!;
    const at = (k: number) => w[k + d + 1]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : at(prevK);
    const prevY = d === 0 ? 0 : prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) moves.push({ del: false, x: prevX, y: prevY });
      else moves.push({ del: true, x: prevX, y: prevY });
    }
    x = prevX;
    y = prevY;
  }
  moves.reverse();
  const blocks: Block[] = [];
  for (const mv of moves) {
    const last = blocks[blocks.length - 1];
    // Contiguous with the previous block when no equal line lies between them.
    if (last && last.oldPos + last.oldLen === mv.x && last.newPos + last.newLen === mv.y) {
      if (mv.del) last.oldLen++;
      else last.newLen++;
    } else {
      blocks.push({ oldPos: mv.x, oldLen: mv.del ? 1 : 0, newPos: mv.y, newLen: mv.del ? 0 : 1 });
    }
  }
  return blocks;
}

/** Line-level diff of two texts as hunks with `context` unchanged lines around each change. Never throws. */
export function structuredPatch(oldText: string, newText: string, context = 3): Hunk[] {
  if (oldText === newText) return [];
  const o = splitLines(oldText);
  const nw = splitLines(newText);
  // A last line without "\n" differs from the same text with one; the key makes them unequal.
  const key = (l: Lines, i: number) => (l.noEol && i === l.lines.length - 1 ? `${l.lines[i]}\u0000` : l.lines[i]!);
  const on = o.lines.length;
  const nn = nw.lines.length;
  let pre = 0;
  while (pre < on && pre < nn && key(o, pre) === key(nw, pre)) pre++;
  let suf = 0;
  while (suf < on - pre && suf < nn - pre && key(o, on - 1 - suf) === key(nw, nn - 1 - suf)) suf++;

  const ids = new Map<string, number>();
  const intern = (s: string) => {
    let id = ids.get(s);
    if (id === undefined) ids.set(s, (id = ids.size));
    return id;
  };
  const a = new Int32Array(on - pre - suf);
  for (let i = 0; i < a.length; i++) a[i] = intern(key(o, pre + i));
  const b = new Int32Array(nn - pre - suf);
  for (let i = 0; i < b.length; i++) b[i] = intern(key(nw, pre + i));
  const mid = myers(a, b) ?? [{ oldPos: 0, oldLen: a.length, newPos: 0, newLen: b.length }];
  const blocks = mid.map((bl) => ({ ...bl, oldPos: bl.oldPos + pre, newPos: bl.newPos + pre }));

  const hunks: Hunk[] = [];
  let i = 0;
  while (i < blocks.length) {
    let j = i;
    // Merge blocks whose separating run of equal lines fits within both contexts.
    while (j + 1 < blocks.length && blocks[j + 1]!.oldPos - (blocks[j]!.oldPos + blocks[j]!.oldLen) <= 2 * context) j++;
    const first = blocks[i]!;
    const last = blocks[j]!;
    const oStart = Math.max(0, first.oldPos - context);
    const oEnd = Math.min(on, last.oldPos + last.oldLen + context);
    const delta = first.newPos - first.oldPos;
    const nStart = oStart + delta;
    const lines: string[] = [];
    const pushOld = (idx: number, prefix: string) => {
      lines.push(prefix + o.lines[idx]);
      if (o.noEol && idx === on - 1) lines.push(NO_EOL);
    };
    const pushNew = (idx: number) => {
      lines.push(`+${nw.lines[idx]}`);
      if (nw.noEol && idx === nn - 1) lines.push(NO_EOL);
    };
    let pos = oStart;
    let newLines = 0;
    for (let q = i; q <= j; q++) {
      const bl = blocks[q]!;
      for (; pos < bl.oldPos; pos++) {
        // An equal line that is old's last without EOL cannot happen (keys differ), so the marker is safe.
        pushOld(pos, " ");
        newLines++;
      }
      for (let r = 0; r < bl.oldLen; r++) pushOld(bl.oldPos + r, "-");
      for (let r = 0; r < bl.newLen; r++) pushNew(bl.newPos + r);
      newLines += bl.newLen;
      pos = bl.oldPos + bl.oldLen;
    }
    for (; pos < oEnd; pos++) {
      pushOld(pos, " ");
      newLines++;
    }
    const oldLines = oEnd - oStart;
    // Unified-diff convention: an empty range starts at the line before it.
    hunks.push({
      oldStart: oldLines === 0 ? oStart : oStart + 1,
      oldLines,
      newStart: newLines === 0 ? nStart : nStart + 1,
      newLines,
      lines,
    });
    i = j + 1;
  }
  return hunks;
}

/** Applies hunks to `oldText` (tests and checkpoints use it to check a patch round-trips). Throws on a mismatch. */
export function applyPatch(oldText: string, hunks: Hunk[]): string {
  const o = splitLines(oldText);
  const out: Array<{ text: string; noEol: boolean }> = [];
  let pos = 0;
  const copyOld = () => {
    out.push({ text: o.lines[pos]!, noEol: o.noEol && pos === o.lines.length - 1 });
    pos++;
  };
  for (const h of hunks) {
    const start = h.oldLines === 0 ? h.oldStart : h.oldStart - 1;
    while (pos < start) copyOld();
    h.lines.forEach((line, li) => {
      if (line === NO_EOL) return;
      const noEol = h.lines[li + 1] === NO_EOL;
      const tag = line[0];
      const text = line.slice(1);
      if (tag === " " || tag === "-") {
        if (o.lines[pos] !== text) throw new Error(`patch does not apply at old line ${pos + 1}`);
        pos++;
      }
      if (tag === " " || tag === "+") out.push({ text, noEol });
    });
  }
  while (pos < o.lines.length) copyOld();
  if (out.length === 0) return "";
  return out.map((l) => l.text).join("\n") + (out[out.length - 1]!.noEol ? "" : "\n");
}
