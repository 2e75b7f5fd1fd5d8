import type { EditorTheme, MarkdownTheme, SelectListTheme } from "@mariozechner/pi-tui";

/** SGR helpers. NO_COLOR (any value) turns colour off, as https://no-color.org asks; layout stays the same. */
const on = !process.env.NO_COLOR;
const sgr = (open: string, close: string) => (s: string) => (on ? `\x1b[${open}m${s}\x1b[${close}m` : s);

export const style = {
  bold: sgr("1", "22"),
  dim: sgr("2", "22"),
  italic: sgr("3", "23"),
  underline: sgr("4", "24"),
  strike: sgr("9", "29"),
  red: sgr("31", "39"),
  green: sgr("32", "39"),
  yellow: sgr("33", "39"),
  blue: sgr("34", "39"),
  magenta: sgr("35", "39"),
  cyan: sgr("36", "39"),
  gray: sgr("90", "39"),
  inverse: sgr("7", "27"),
};

export const selectTheme: SelectListTheme = {
  selectedPrefix: style.cyan,
  selectedText: (s) => style.bold(style.cyan(s)),
  description: style.gray,
  scrollInfo: style.gray,
  noMatch: style.gray,
};

export const editorTheme: EditorTheme = { borderColor: style.gray, selectList: selectTheme };

export const markdownTheme: MarkdownTheme = {
  heading: (s) => style.bold(style.cyan(s)),
  link: style.underline,
  linkUrl: style.gray,
  code: style.yellow,
  codeBlock: style.green,
  codeBlockBorder: style.gray,
  quote: style.italic,
  quoteBorder: style.gray,
  hr: style.gray,
  listBullet: style.cyan,
  bold: style.bold,
  italic: style.italic,
  strikethrough: style.strike,
  underline: style.underline,
};
