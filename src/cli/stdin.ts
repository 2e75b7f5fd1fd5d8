/** stream-json input (contracts §4.5): one user message per line; other lines are ignored for now. */
export async function* stdinPrompts(kind: "stream-json"): AsyncIterable<string> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of Bun.stdin.stream()) {
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      const p = parseUserLine(line, kind);
      if (p !== null) yield p;
    }
  }
  const p = parseUserLine(buf.trim(), kind);
  if (p !== null) yield p;
}

function parseUserLine(line: string, _kind: "stream-json"): string | null {
  if (!line) return null;
  let msg: any;
  try {
    msg = JSON.parse(line);
  } catch {
    process.stderr.write(`yoke: ignoring a stdin line that is not JSON: ${line.slice(0, 80)}\n`);
    return null;
  }
  if (msg?.type !== "user") return null;
  const c = msg.message?.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.filter((b: any) => b?.type === "text").map((b: any) => b.text).join("\n");
  return null;
}
