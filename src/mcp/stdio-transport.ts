import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { killGroup, spawnPiped, type PipedChild } from "../util/subprocess.ts";

/**
 * The stdio transport, ours rather than the SDK's StdioClientTransport because a server must run in its own process
 * group (so closing it also ends what it spawned, e.g. `npx` → node), get the session's whole environment (the SDK
 * passes only a short allow-list), and keep its stderr for a log and for the error we report when it dies. Lines on
 * stdout that are not JSON-RPC are skipped and remembered, not fatal: many servers print a banner there.
 *
 * It loads nothing of the SDK at run time (types only), so a server is spawned while the SDK is still being imported
 * (bench/mcp.ts: the import cost ~60 ms before any server started). `start()` may be called early and again by the
 * SDK's `connect`: the process starts once, and messages that arrive before a reader is set wait for it.
 */
export type StdioTransportOptions = {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Appended with the server's stderr as it arrives (created on first write). */
  logFile?: string;
  /** The longest message (line) taken; default MAX_MESSAGE_CHARS. */
  maxMessageChars?: number;
};

export type StdioTransport = Transport & {
  /** The last ~2 KB of stderr, for error messages. */
  stderrTail(): string;
  /** The last non-JSON-RPC line seen on stdout, if any. */
  garbage(): string | undefined;
  /** How the process ended, once it has. */
  exit(): { code: number | null; signal: string | null } | undefined;
  pid(): number | undefined;
};

const TAIL = 2048;

/** The longest stdout line (one JSON-RPC message) a server may send: a server that streams without newlines is cut off here. */
export const MAX_MESSAGE_CHARS = 64 * 1024 * 1024;

/** Characters of a server's stderr appended to its log per run: a server that floods stderr cannot fill the disk. */
export const MAX_LOG_CHARS = 16 * 1024 * 1024;

/**
 * A JSON-RPC 2.0 message by shape: a request or notification (a method), or a response (an id with a result or an
 * error). The SDK's Protocol checks the details; this only tells messages from banners and stray output.
 */
export function asJsonRpc(v: unknown): JSONRPCMessage | undefined {
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const m = v as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return undefined;
  if (typeof m.method === "string") return m as unknown as JSONRPCMessage;
  if ((typeof m.id === "string" || typeof m.id === "number") && ("result" in m || "error" in m)) return m as unknown as JSONRPCMessage;
  return undefined;
}

export function createStdioTransport(o: StdioTransportOptions): StdioTransport {
  let child: PipedChild | undefined;
  /** Set once the child's stdin was ended or failed: nothing more is sent. */
  let stdinDone = false;
  /** Resolves when the process has exited and its stdout and stderr are drained (Node's `close`). */
  let closed: Promise<void> | undefined;
  let started: Promise<void> | undefined;
  /** Messages read before the SDK set `onmessage` (the transport was started early). */
  const early: JSONRPCMessage[] = [];
  const deliver = (msg: JSONRPCMessage) => {
    if (t.onmessage) {
      while (early.length) t.onmessage(early.shift()!);
      t.onmessage(msg);
    } else early.push(msg);
  };
  let buffer = "";
  let stderr = "";
  let lastGarbage: string | undefined;
  let exited: { code: number | null; signal: string | null } | undefined;
  let logReady = false;
  let logged = 0;
  const maxMessage = o.maxMessageChars ?? MAX_MESSAGE_CHARS;
  const onStdout = (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      let msg: JSONRPCMessage | undefined;
      try {
        msg = asJsonRpc(JSON.parse(line));
      } catch {
        // not JSON: remembered below
      }
      if (msg) deliver(msg);
      else lastGarbage = line.slice(0, 200);
    }
    // What is left is one unfinished line: past the cap the server is cut off, said, and closed.
    if (buffer.length > maxMessage) {
      buffer = "";
      t.onerror?.(new Error(`the server sent a message longer than ${maxMessage} characters without a newline; it was dropped and the server stopped`));
      void t.close();
    }
  };
  const onStderr = (chunk: string) => {
    stderr = (stderr + chunk).slice(-TAIL);
    if (!o.logFile || logged > MAX_LOG_CHARS) return;
    try {
      if (!logReady) mkdirSync(dirname(o.logFile), { recursive: true });
      logReady = true;
      logged += chunk.length;
      appendFileSync(o.logFile, logged > MAX_LOG_CHARS ? `${chunk}\n[yoke: the rest of this server's stderr in this run is not logged (over ${MAX_LOG_CHARS} characters)]\n` : chunk);
    } catch {
      // A log we cannot write must not take the server down.
    }
  };
  /** Reads a stream to its end as UTF-8 text, chunk by chunk; a read error ends it. */
  const drain = async (stream: ReadableStream<Uint8Array>, each: (text: string) => void) => {
    const decoder = new TextDecoder();
    try {
      for await (const c of stream) {
        const text = decoder.decode(c, { stream: true });
        if (text) each(text);
      }
    } catch {
      // The pipe broke: what was read is kept.
    }
    const rest = decoder.decode();
    if (rest) each(rest);
  };
  const t: StdioTransport = {
    stderrTail: () => stderr,
    garbage: () => lastGarbage,
    exit: () => exited,
    pid: () => child?.pid,
    start() {
      if (started) {
        // The SDK's connect after an early start: hand over what was read meanwhile.
        return started.then(() => {
          while (early.length && t.onmessage) t.onmessage(early.shift()!);
        });
      }
      let c: PipedChild;
      try {
        // spawnPiped: own process group, dies with yoke even under SIGKILL (issue 20.8); Bun's pipes, not Node's
        // streams (a one-turn run's peak RSS, issue 21: see the README's start-up section).
        c = spawnPiped([o.command, ...o.args], { cwd: o.cwd, env: o.env, stdin: "pipe" });
      } catch (err) {
        const e = new Error(`could not start ${o.command}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "command not found" : (err as Error).message}`);
        started = Promise.reject(e);
        t.onerror?.(e);
        return started;
      }
      child = c;
      closed = Promise.all([c.exited, drain(c.stdout, onStdout), drain(c.stderr, onStderr)]).then(() => {
        exited = { code: c.exitCode, signal: c.signalCode };
        child = undefined;
        stdinDone = true;
        t.onclose?.();
      });
      started = Promise.resolve();
      return started;
    },
    async send(message) {
      const sink = child?.stdin;
      if (!sink || stdinDone) throw new Error("the server process is not running");
      try {
        sink.write(`${JSON.stringify(message)}\n`);
        await sink.flush();
      } catch (err) {
        stdinDone = true;
        // A broken pipe means the server closed its stdin, nearly always by exiting: wait a moment for that exit, so
        // the failure names it ("the process exited with code 7") rather than the pipe.
        await Promise.race([closed, Bun.sleep(1000)]);
        t.onerror?.(err as Error);
        throw err;
      }
    },
    async close() {
      const c = child;
      if (!c) return;
      if (!stdinDone) {
        stdinDone = true;
        try {
          void Promise.resolve(c.stdin?.end()).catch(() => {});
        } catch {
          // Already closed by the server's end.
        }
      }
      // A server that ignores SIGTERM is killed after 2 s; the wait is bounded and never blocks the run's exit for long.
      await Promise.race([Promise.all([closed, killGroup(c.pid, 2000, c.exited)]), new Promise<void>((r) => setTimeout(r, 2500))]);
    },
  };
  return t;
}
