/**
 * Whether this terminal can show the session, checked before anything is drawn. Pure: the caller passes the
 * environment and size. A problem is one line naming what is wrong and what to do instead.
 */
export const MIN_COLUMNS = 20;
export const MIN_ROWS = 5;

export function terminalProblem(env: Record<string, string | undefined>, columns: number, rows: number): string | null {
  if (env.TERM === "dumb")
    return 'yoke: this terminal (TERM=dumb) cannot show the interactive session; run `yoke -p "your prompt"` for a printed answer.';
  if (columns > 0 && rows > 0 && (columns < MIN_COLUMNS || rows < MIN_ROWS))
    return `yoke: the terminal is too small for the interactive session (${columns}x${rows}; it needs at least ${MIN_COLUMNS}x${MIN_ROWS}). Enlarge it, or run \`yoke -p "your prompt"\`.`;
  return null;
}

/** A notice when the locale is set and is not UTF-8 (symbols and pasted text may then show wrongly); null otherwise. */
export function localeNotice(env: Record<string, string | undefined>): string | null {
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG;
  if (!locale || /utf-?8/i.test(locale)) return null;
  return `The locale ${locale} is not UTF-8: yoke writes UTF-8, so some symbols may show wrongly (set LANG=C.UTF-8 to fix).`;
}
