import { style } from "./theme.ts";

/**
 * Colours for code blocks in answers: keywords, strings, comments and numbers, by one scan per line that works
 * for the languages answers mostly hold (TypeScript/JavaScript, Python, shell, Go, Rust, JSON). Enough to read
 * code at a glance; a grammar-based highlighter (highlight.js and the like) would be a large dependency loaded
 * into every session for that (not measured here). Pure; a string inside a comment or a comment marker inside a string stays what it is. Never throws.
 */
const KEYWORDS = new Set(
  (
    "const let var function return if else for while do switch case break continue new class extends import export from as " +
    "default async await try catch finally throw typeof instanceof in of void null undefined true false this super yield " +
    "interface type enum implements public private protected readonly static def lambda pass elif None True False and or not " +
    "is with self fn let mut impl struct trait pub use mod match loop func package go defer chan map range select then fi esac done echo"
  ).split(" "),
);

const TOKEN = /(\/\/.*$|#(?![!\[]).*$)|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|\b(\d[\d_.]*(?:e[+-]?\d+)?)\b|([A-Za-z_][\w$]*)/g;

export function highlightCode(code: string, lang?: string): string[] {
  const hashComments = !lang || /^(py|python|sh|bash|zsh|shell|console|rb|ruby|yaml|yml|toml|r|perl|make)$/i.test(lang);
  return code.split("\n").map((line) =>
    line.replace(TOKEN, (m, comment: string | undefined, str: string | undefined, num: string | undefined, word: string | undefined) => {
      if (comment !== undefined) return comment.startsWith("#") && !hashComments ? m : style.gray(comment);
      if (str !== undefined) return style.green(str);
      if (num !== undefined) return style.yellow(num);
      if (word !== undefined && KEYWORDS.has(word)) return style.magenta(word);
      return m;
    }),
  );
}
