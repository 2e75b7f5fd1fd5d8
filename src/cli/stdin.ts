/**
 * stream-json input (contracts §4.5–4.6). stdin is read all the time, not only between turns, so a control
 * request (`interrupt`) or the answer to one of our own requests (`can_use_tool`, `hook_callback`) is handled while
 * a turn runs. User messages queue up as prompts. The host's first message, when it is `initialize` (the Agent SDK
 * always starts so), is handed to the caller before the session is composed: it carries the system prompt, hooks,
 * agents and SDK MCP servers. Bad lines are reported on stderr naming the line and never end the session. Never throws.
 */
import type { ImageBlock, TextBlock } from "../provider/types.ts";
import { createDiagnostics } from "../util/diagnostics.ts";
import { writeOut } from "../util/output.ts";

export type ControlHandler = (request: Record<string, unknown>) => Promise<Record<string, unknown>> | Record<string, unknown>;

export type InitializeRequest = { requestId: string; request: Record<string, unknown> };

export type RequestOptions = {
  /** Reject (and send control_cancel_request) when the host has not answered in this long. */
  timeoutMs?: number;
  /** Cancels the request (control_cancel_request) and rejects. */
  signal?: AbortSignal;
};

export type StdinSession = {
  prompts: AsyncIterable<Prompt>;
  /** Set by the mode: answers control requests. Requests that arrive before it is set wait for it. */
  onControl: ControlHandler | null;
  /** The host's first message if it was `initialize`, else null (a user message came first, or stdin ended). */
  initialize: Promise<InitializeRequest | null>;
  /** Answers a request the caller took itself (the first initialize). */
  respond(requestId: string, answer: { response: Record<string, unknown> } | { error: string }): void;
  /** Sends a control request to the host; resolves with its response, rejects on an error answer, timeout, cancel or stdin end. */
  request(request: Record<string, unknown>, opts?: RequestOptions): Promise<Record<string, unknown>>;
  /** True once stdin ended: no answer can come any more. */
  readonly closed: boolean;
  /** The host's `uuid` for the prompt last taken from `prompts`, if it sent one. */
  promptUuid(): string | undefined;
};

export type StdinOptions = {
  input?: ReadableStream<Uint8Array>;
  /** Writes one line of stdout (the mode's writer, so control lines and messages never interleave mid-line). */
  writeLine?: (line: string) => void;
  warn?: (msg: string) => void;
};

/** A prompt: text, or text and image blocks as the host sent them (contracts §4.5 `content`). */
export type Prompt = string | Array<TextBlock | ImageBlock>;

const isImage = (b: any): b is ImageBlock => b?.type === "image" && b.source?.type === "base64" && typeof b.source.data === "string" && typeof b.source.media_type === "string";

function userPrompt(msg: any): Prompt | null {
  if (msg?.type !== "user") return null;
  const c = msg.message?.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return null;
  const text = c.filter((b: any) => b?.type === "text" && typeof b.text === "string").map((b: any) => b.text).join("\n");
  if (!c.some(isImage)) return text;
  return c.flatMap((b: any): Array<TextBlock | ImageBlock> => (isImage(b) ? [{ type: "image", source: b.source }] : b?.type === "text" && typeof b.text === "string" && b.text ? [{ type: "text", text: b.text }] : []));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const blocksOf = (p: Prompt): Array<TextBlock | ImageBlock> => (typeof p === "string" ? [{ type: "text", text: p }] : p);

/** Host messages that carry nothing for a headless run (the SDK's keep-alives, env updates). */
const QUIET_TYPES = new Set(["keep_alive", "update_environment_variables", "control_cancel_request"]);

export function stdinSession(o: StdinOptions = {}): StdinSession {
  const input = o.input ?? Bun.stdin.stream();
  const writeLine = o.writeLine ?? ((line: string) => void writeOut(`${line}\n`));
  const write = (obj: unknown) => writeLine(JSON.stringify(obj));
  const warn = o.warn ?? ((m: string) => void createDiagnostics().warn(m));
  const queue: Array<{ prompt: Prompt; uuid?: string }> = [];
  let currentUuid: string | undefined;
  const usedUuids = new Set<string>();
  const held: Array<TextBlock | ImageBlock> = [];
  let wake: (() => void) | null = null;
  let ended = false;
  let seq = 0;
  let lineNo = 0;
  let sawFirst = false;
  const pending = new Map<string, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  let handler: ControlHandler | null = null;
  let markReady!: () => void;
  const ready = new Promise<void>((r) => (markReady = r));
  let settleInit!: (v: InitializeRequest | null) => void;
  const initialize = new Promise<InitializeRequest | null>((r) => (settleInit = r));

  const respond: StdinSession["respond"] = (requestId, answer) => {
    if ("error" in answer) write({ type: "control_response", response: { subtype: "error", request_id: requestId, error: answer.error } });
    else write({ type: "control_response", response: { subtype: "success", request_id: requestId, response: answer.response } });
  };

  const s: StdinSession = {
    get onControl() {
      return handler;
    },
    set onControl(h) {
      handler = h;
      if (h) markReady();
    },
    initialize,
    respond,
    get closed() {
      return ended;
    },
    promptUuid: () => currentUuid,
    prompts: (async function* () {
      for (;;) {
        if (queue.length) {
          const next = queue.shift()!;
          currentUuid = next.uuid;
          yield next.prompt;
        }
        else if (ended) return;
        else await new Promise<void>((r) => (wake = r));
      }
    })(),
    request(request, opts = {}) {
      const what = String(request.subtype ?? "control");
      if (ended) return Promise.reject(new Error(`stdin is closed, so the host cannot answer the ${what} request`));
      const id = `yoke_req_${++seq}`;
      return new Promise((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const cleanup = () => {
          clearTimeout(timer);
          opts.signal?.removeEventListener("abort", onAbort);
          pending.delete(id);
        };
        const giveUp = (why: string) => {
          cleanup();
          if (!ended) write({ type: "control_cancel_request", request_id: id });
          reject(new Error(why));
        };
        const onAbort = () => giveUp(`the ${what} request was cancelled`);
        if (opts.signal?.aborted) return reject(new Error(`the ${what} request was cancelled`));
        opts.signal?.addEventListener("abort", onAbort, { once: true });
        if (opts.timeoutMs !== undefined)
          timer = setTimeout(() => giveUp(`the host did not answer the ${what} request within ${opts.timeoutMs} ms`), opts.timeoutMs);
        pending.set(id, {
          resolve: (r) => (cleanup(), resolve(r)),
          reject: (e) => (cleanup(), reject(e)),
        });
        write({ type: "control_request", request_id: id, request });
      });
    },
  };
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };

  /** Host → CLI request: answered when the mode is ready; never blocks reading the next line. */
  const dispatch = (id: string, request: Record<string, unknown>) =>
    void (async () => {
      await ready;
      try {
        respond(id, { response: await handler!(request) });
      } catch (err) {
        respond(id, { error: (err as Error).message });
      }
    })();

  const handle = (line: string) => {
    lineNo++;
    if (!line.trim()) return;
    let msg: any;
    try {
      msg = JSON.parse(line);
    } catch {
      warn(`stdin line ${lineNo} is not JSON, skipped: ${line.slice(0, 80)}`);
      return;
    }
    const first = !sawFirst;
    sawFirst = true;
    if (first && !(msg?.type === "control_request" && msg.request?.subtype === "initialize")) settleInit(null);
    if (msg?.type === "control_request") {
      const id = msg.request_id;
      if (typeof id !== "string" || !id) {
        warn(`stdin line ${lineNo}: control_request without a request_id, skipped`);
        return;
      }
      if (!msg.request || typeof msg.request !== "object" || Array.isArray(msg.request) || typeof msg.request.subtype !== "string") {
        respond(id, { error: `malformed control_request (stdin line ${lineNo}): "request" must be an object with a string "subtype"` });
        return;
      }
      if (first && msg.request.subtype === "initialize") settleInit({ requestId: id, request: msg.request });
      else dispatch(id, msg.request);
      return;
    }
    if (msg?.type === "control_response") {
      const r = msg.response ?? {};
      const p = pending.get(r.request_id);
      if (!p) return; // an answer to a request we gave up on (timeout, cancel)
      if (r.subtype === "error") p.reject(new Error(`the host answered with an error: ${String(r.error ?? "no message")}`));
      else p.resolve((r.response && typeof r.response === "object" ? r.response : {}) as Record<string, unknown>);
      return;
    }
    if (msg?.type === "user") {
      const prompt = userPrompt(msg);
      if (prompt === null || (typeof prompt === "string" && !prompt.trim())) {
        warn(`stdin line ${lineNo}: user message without text or image content, skipped`);
        return;
      }
      // contracts §4.5 `shouldQuery: false`: added to the conversation without a turn; it goes with the next prompt.
      if (msg.shouldQuery === false) {
        held.push(...blocksOf(prompt));
        return;
      }
      // The host's uuid names the prompt's transcript line (what rewindFiles and resumeSessionAt take); a repeated
      // or malformed one is named and a fresh uuid used instead, so the chain never holds one twice.
      let uuid: string | undefined;
      if (typeof msg.uuid === "string" && msg.uuid) {
        if (!UUID.test(msg.uuid)) warn(`stdin line ${lineNo}: "uuid" ${JSON.stringify(msg.uuid.slice(0, 60))} is not a UUID; a new one is used`);
        else if (usedUuids.has(msg.uuid)) warn(`stdin line ${lineNo}: "uuid" ${msg.uuid} was used before; a new one is used`);
        else usedUuids.add((uuid = msg.uuid));
      }
      queue.push({ prompt: held.length ? [...held.splice(0), ...blocksOf(prompt)] : prompt, ...(uuid ? { uuid } : {}) });
      notify();
      return;
    }
    if (!QUIET_TYPES.has(msg?.type)) warn(`stdin line ${lineNo}: unknown message type ${JSON.stringify(msg?.type)}, skipped`);
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
          handle(line);
        }
      }
      handle(buf);
    } catch (err) {
      warn(`reading stdin failed: ${(err as Error).message}`);
    } finally {
      ended = true;
      settleInit(null);
      for (const p of [...pending.values()]) p.reject(new Error("stdin closed before the host answered"));
      pending.clear();
      notify();
    }
  })();
  return s;
}
