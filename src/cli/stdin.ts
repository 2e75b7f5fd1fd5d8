/**
 * stream-json input (contracts §4.5–4.6): user messages become prompts; control requests are answered on stdout.
 * Unknown control subtypes get an error response naming them; malformed lines are reported on stderr and skipped.
 */
export type ControlHandler = (request: Record<string, unknown>) => Promise<Record<string, unknown>> | Record<string, unknown>;

export type StdinSession = {
  prompts: AsyncIterable<string>;
  /** Set by the mode: answers control requests (`initialize`, `interrupt` …). */
  onControl: ControlHandler | null;
};

const write = (obj: unknown) => process.stdout.write(`${JSON.stringify(obj)}\n`);

export function stdinSession(): StdinSession {
  const s: StdinSession = { prompts: lines(), onControl: null };
  async function* lines(): AsyncIterable<string> {
    const decoder = new TextDecoder();
    let buf = "";
    const handle = async (line: string): Promise<string | null> => {
      if (!line.trim()) return null;
      let msg: any;
      try {
        msg = JSON.parse(line);
      } catch {
        process.stderr.write(`yoke: stdin line is not JSON, skipped: ${line.slice(0, 80)}\n`);
        return null;
      }
      if (msg?.type === "control_request") {
        const id = msg.request_id;
        try {
          if (!s.onControl) throw new Error("not ready");
          const response = await s.onControl(msg.request ?? {});
          write({ type: "control_response", response: { subtype: "success", request_id: id, response } });
        } catch (err) {
          write({ type: "control_response", response: { subtype: "error", request_id: id, error: (err as Error).message } });
        }
        return null;
      }
      if (msg?.type !== "user") return null;
      if (msg.shouldQuery === false) return null;
      const c = msg.message?.content;
      if (typeof c === "string") return c;
      if (Array.isArray(c)) return c.filter((b: any) => b?.type === "text").map((b: any) => b.text).join("\n");
      return null;
    };
    for await (const chunk of Bun.stdin.stream()) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const p = await handle(line);
        if (p !== null) yield p;
      }
    }
    const p = await handle(buf);
    if (p !== null) yield p;
  }
  return s;
}
