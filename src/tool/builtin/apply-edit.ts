/**
 * The exact-text replacement behind Edit and MultiEdit. Pure: returns the new text or an instruction
 * for the model; never throws.
 */

export type EditSpec = { old_string: string; new_string: string; replace_all?: boolean };

export type EditOutcome =
  | { ok: true; text: string; count: number; /** offset of the first change in the new text */ at: number }
  | { ok: false; error: string };

// Models often type straight quotes where the file has typographic ones (or the reverse). Each maps one
// UTF-16 unit to one, so offsets found in the folded text are valid in the real text.
const foldQuotes = (s: string) => s.replace(/[\u2018\u2019]/g, "'").replace(/[\u201C\u201D]/g, '"');

function positions(hay: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

/** Replaces `e.old_string` in `text`. `where` names the file in error messages. */
export function applyEdit(text: string, e: EditSpec, where: string): EditOutcome {
  const { old_string: oldStr, new_string: newStr } = e;
  if (oldStr === newStr)
    return { ok: false, error: "old_string and new_string are identical, so this edit would change nothing. Give the new text in new_string." };
  if (oldStr === "") {
    if (text.trim() !== "")
      return {
        ok: false,
        error: `old_string is empty, but ${where} already has content. Put the exact text to replace in old_string, or use Write to replace the whole file.`,
      };
    return { ok: true, text: newStr, count: 1, at: 0 };
  }
  let found = positions(text, oldStr);
  if (found.length === 0) found = positions(foldQuotes(text), foldQuotes(oldStr));
  if (found.length === 0) {
    const numbered = /^\s*\d+\t/.test(oldStr)
      ? " old_string seems to start with a line number from Read's output; leave out the number and tab."
      : "";
    return {
      ok: false,
      error: `old_string was not found in ${where}.${numbered} Read the file again and copy the text exactly, including indentation, whitespace and line breaks.`,
    };
  }
  if (found.length > 1 && !e.replace_all)
    return {
      ok: false,
      error: `old_string occurs ${found.length} times in ${where}, but replace_all is false. Include more surrounding lines in old_string so it matches exactly one place, or set replace_all to true to change all ${found.length}.`,
    };
  let len = oldStr.length;
  // Deleting a whole line's text should delete the line, not leave an empty one behind; deleting the
  // end of a line must keep its break, or two lines would be joined.
  const at = found[0]!;
  const wholeLine = (at === 0 || text[at - 1] === "\n") && text[at + len] === "\n";
  if (newStr === "" && found.length === 1 && !oldStr.endsWith("\n") && wholeLine) len++;
  let out = "";
  let prev = 0;
  for (const p of found) {
    out += text.slice(prev, p) + newStr;
    prev = p + len;
  }
  out += text.slice(prev);
  return { ok: true, text: out, count: found.length, at };
}

/**
 * New-text lines around the change at `at`, numbered as Read numbers them, for the tool result. Scans for
 * line breaks instead of splitting, so a 200 MB file is not turned into millions of strings for 40 lines.
 */
export function snippetAround(text: string, at: number, changedLength: number, context = 4, maxLines = 40): string {
  const breaksBefore = (pos: number) => {
    let n = 0;
    for (let i = text.indexOf("\n"); i !== -1 && i < pos; i = text.indexOf("\n", i + 1)) n++;
    return n;
  };
  const totalLines = breaksBefore(text.length) + (text.endsWith("\n") ? 0 : 1);
  const firstLine = breaksBefore(at);
  const lastLine = breaksBefore(at + changedLength);
  const from = Math.max(0, firstLine - context);
  const to = Math.min(totalLines, lastLine + context + 1, from + maxLines);
  let pos = 0;
  for (let l = 0; l < from; l++) pos = text.indexOf("\n", pos) + 1;
  const rows: string[] = [];
  for (let l = from; l < to; l++) {
    const end = text.indexOf("\n", pos);
    rows.push(`${l + 1}\t${text.slice(pos, end === -1 ? text.length : end)}`);
    pos = end + 1;
  }
  if (to < Math.min(totalLines, lastLine + context + 1)) rows.push("…");
  return rows.join("\n");
}
