import { writeOut, writeErr } from "../util/output.ts";
/**
 * stream-json input (contracts §4.5–4.6). stdin is read all the time, not only between turns, so a control
 * request (`interrupt`) or the answer to one of our own requests (`can_use_tool`) is handled while a turn runs.
 * User messages queue up as prompts. Unknown control subtypes get an error response naming them; malformed
 * lines are reported on stderr and skipped. Never throws.
 */
export type ControlHandler = (request: Record<string, unknown>) => Promise<Record<string, unknown>> | Record<string, unknown>;

export type StdinSession = {
  prompts: AsyncIterable<string>;
  /** Set by the mode: answers control requests (`initialize`, `interrupt` …). */
  onControl: ControlHandler | null;
  /** Sends a control request to the host and resolves with its response (rejects on an error response or stdin end). */
  request(request: Record<string, unknown>): Promise<Record<string, unknown>>;
};

const write = (obj: unknown) => writeOut(`${JSON.stringify(obj)}\n`);

function userText(msg: any): string | null {
  if (msg?.type !== "user" || msg.shouldQuery === false) return null;
  const c = msg.message?.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.filter((b: any) => b?.type === "text").map((b: any) => b.text).join("\n");
  return null;
}

export function stdinSession(input: ReadableStream<Uint8Array> = Bun.stdin.stream()): StdinSession {
  const queue: string[] = [];
  let wake: (() => void) | null = null;
  let ended = false;
  let seq = 0;
  const pending = new Map<string, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();

  const s: StdinSession = {
    onControl: null,
    prompts: (async function* () {
      for (;;) {
        if (queue.length) yield queue.shift()!;
        else if (ended) return;
        else await new Promise<void>((r) => (wake = r));
      }
    })(),
    request(request) {
      if (ended) return Promise.reject(new Error("stdin is closed: no host to ask"));
      const id = `yoke_req_${++seq}`;
      write({ type: "control_request", request_id: id, request });
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
  };
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };

  const handle = async (line: string) => {
    if (!line.trim()) return;
    let msg: any;
    try {
      msg = JSON.parse(line);
    } catch {
      writeErr(`yoke: stdin line is not JSON, skipped: ${line.slice(0, 80)}\n`);
      return;
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
      return;
    }
    if (msg?.type === "control_response") {
      const r = msg.response ?? {};
      const p = pending.get(r.request_id);
      if (!p) return;
      pending.delete(r.request_id);
      if (r.subtype === "error") p.reject(new Error(String(r.error ?? "the host answered with an error")));
      else p.resolve((r.response ?? {}) as Record<string, unknown>);
      return;
    }
    const text = userText(msg);
    if (text !== null) {
      queue.push(text);
      notify();
    }
  };

  void (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    try {
      for await (const chunk of input) {
        buf += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          await handle(line);
        }
      }
      await handle(buf);
    } catch (err) {
      writeErr(`yoke: reading stdin failed: ${(err as Error).message}\n`);
    } finally {
      ended = true;
      for (const p of pending.values()) p.reject(new Error("stdin closed before the host answered"));
      pending.clear();
      notify();
    }
  })();
  return s;
}
