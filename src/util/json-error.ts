/** Locates the first syntax error in a JSON text, since JSON.parse in Bun names no position. */
export function locateJsonError(text: string): { line: number; column: number; message: string } | null {
  let i = 0;
  const fail = (message: string): never => {
    throw Object.assign(new Error(message), { at: i });
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected a property name in double quotes");
        str();
        ws();
        if (text[i] !== ":") fail("expected ':' after the property name");
        i++;
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") return void i++;
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") return void i++;
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    const m = /^(-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (!m) fail(c === undefined ? "unexpected end of file" : `unexpected character '${c}'`);
    i += m![0].length;
  };
  const str = () => {
    i++;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') return void i++;
      if (c === "\\") i++;
      else if (c === "\n") fail("unterminated string");
      i++;
    }
    fail("unterminated string");
  };
  try {
    value();
    ws();
    if (i < text.length) fail("unexpected text after the JSON value");
    return null;
  } catch (e) {
    const at = (e as { at: number }).at;
    const before = text.slice(0, at);
    const line = before.split("\n").length;
    const column = at - before.lastIndexOf("\n");
    return { line, column, message: (e as Error).message };
  }
}

/** JSON.parse with an error that says where. Throws Error(`<label>:<line>:<col>: <what>`). */
export function parseJsonWithLocation(text: string, label: string): unknown {
  // Editors on Windows often save JSON with a byte-order mark; it is not part of the document.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch (err) {
    const loc = locateJsonError(text);
    if (loc) throw new Error(`${label}:${loc.line}:${loc.column}: invalid JSON: ${loc.message}`);
    throw new Error(`${label}: invalid JSON: ${(err as Error).message}`);
  }
}
