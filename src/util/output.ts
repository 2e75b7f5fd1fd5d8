/**
 * The one way yoke writes to stdout and stderr (DESIGN "Trust and output": what a script reads is
 * complete whatever the reader's speed).
 *
 * Why: in Bun a write to a pipe that the reader has not emptied yet is held in memory, and
 * process.exit() drops it: `yoke -p … | slow-reader` got the first 64 KiB and exit 0. Every write
 * here remembers its completion, so the exit path (`flushOutput`) can wait for the reader. Bun fires
 * write callbacks in order, so the last write's callback means everything before it is out. (An
 * empty write's callback fires at once, out of order, so empty writes are skipped.)
 *
 * A reader that went away (EPIPE) marks the stream closed: later writes are dropped quietly and
 * `onStdoutClosed` listeners run once (the headless run ends itself). Writes never throw.
 */
type Tracked = {
  write(text: string): void;
  /** Resolves when everything written so far has reached the reader (or the reader is gone). */
  flushed(): Promise<void>;
  /** Resolves when the stream is ready for more (no backpressure), so a producer can pace itself. */
  ready(): Promise<void>;
  readonly closed: boolean;
};

function track(stream: NodeJS.WriteStream, onClosed: () => void): Tracked {
  let last: Promise<void> = Promise.resolve();
  let backpressure: Promise<void> | null = null;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    onClosed();
  };
  stream.on("error", (err: NodeJS.ErrnoException) => {
    // EPIPE / ERR_STREAM_DESTROYED: the reader left. Anything else on a std stream is just as final.
    void err;
    close();
  });
  return {
    write(text) {
      if (closed || text.length === 0) return;
      let ok = true;
      last = new Promise<void>((resolve) => {
        try {
          ok = stream.write(text, (err) => {
            if (err) close();
            resolve();
          });
        } catch {
          close();
          resolve();
        }
      });
      if (!ok && !backpressure) {
        const settled = last;
        backpressure = settled.then(() => {
          backpressure = null;
        });
      }
    },
    flushed: () => last,
    ready: () => backpressure ?? Promise.resolve(),
    get closed() {
      return closed;
    },
  };
}

const closedListeners: Array<() => void> = [];
let stdoutStream: Tracked | undefined;
let stderrStream: Tracked | undefined;

// The marks (YOKE_TIMING) show when each Node stream was made: a `-p` text or json run makes neither (writeOutAtEnd).
const stdout = (): Tracked => {
  if (!stdoutStream) {
    performance.mark("yoke:stdout-made");
    stdoutStream = track(process.stdout, () => {
      for (const l of closedListeners.splice(0)) l();
    });
  }
  return stdoutStream;
};
const stderr = (): Tracked => {
  if (!stderrStream) {
    performance.mark("yoke:stderr-made");
    stderrStream = track(process.stderr, () => {});
  }
  return stderrStream;
};

/** Writes text to stdout as is (add the newline yourself). */
export const writeOut = (text: string): void => stdout().write(text);

/** Writes text to stderr as is (add the newline yourself). */
export const writeErr = (text: string): void => stderr().write(text);

/**
 * Text to stderr at exit, for a probe (YOKE_TIMING) that must not change what it measures: straight to fd 2 unless
 * the stream exists already (then through it, after what it holds). Making the stream costs ~8 ms of CPU, and
 * importing node:fs for a writeSync ~2 ms and ~2 MiB of RSS in a start that has not loaded it (`--version`, Bun 1.4.5);
 * Bun.write needs neither. flushOutput waits for it.
 */
export function writeErrAtExit(text: string): void {
  if (stderrStream) return stderrStream.write(text);
  const prev = atExit;
  atExit = (async () => {
    await prev;
    try {
      await Bun.write(Bun.stderr, text);
    } catch {
      // stderr closed: nothing to tell.
    }
  })();
}
let atExit: Promise<void> | undefined;

/**
 * A one-shot headless run's answer (`-p` text or json: the run's only stdout): straight to fd 1 unless the stream
 * exists already (then through it, after what it holds). Making process.stdout cost a one-turn run ~3 ms of CPU on its
 * critical path (the model's answer waited behind it, issue 21). Bun.write resolves only once the reader took every
 * byte (test/e2e/pipes.test.ts), writes are chained so they stay in order, and flushOutput waits for them. A reader
 * that went away (EPIPE) ends the chain as the stream's error would: later writes are dropped, onStdoutClosed runs.
 */
export function writeOutAtEnd(text: string): void {
  if (stdoutStream) return stdoutStream.write(text);
  if (stdoutGone || text.length === 0) return;
  const prev = outAtEnd;
  outAtEnd = (async () => {
    await prev;
    if (stdoutGone) return;
    try {
      await Bun.write(Bun.stdout, text);
    } catch {
      stdoutGone = true;
      for (const l of closedListeners.splice(0)) l();
    }
  })();
}
let outAtEnd: Promise<void> | undefined;
let stdoutGone = false;

/** One line to stderr. */
export const errLine = (line: string): void => stderr().write(`${line}\n`);

/** Resolves once stdout can take more without growing its in-memory buffer. */
export const stdoutReady = (): Promise<void> => stdoutStream?.ready() ?? Promise.resolve(); // nothing written, nothing held

/**
 * Runs `fn` once, on the first error of stdin, stdout or stderr: at a terminal, that it went away (reads and writes
 * fail with EIO). Later errors are heard and dropped: unheard, Bun raises a failed std-stream write as an unhandled
 * rejection, which is not a failure of the program.
 */
export function onStdStreamError(fn: () => void): void {
  let fired = false;
  const once = () => {
    if (fired) return;
    fired = true;
    fn();
  };
  for (const s of [process.stdin, process.stdout, process.stderr]) s.on("error", once);
}

/** Runs `fn` once when stdout's reader goes away (EPIPE). */
export function onStdoutClosed(fn: () => void): void {
  // Not stdout(): a stream nobody wrote to cannot have lost its reader, and making it costs the start (issue 21).
  if (stdoutStream?.closed || stdoutGone) fn();
  else closedListeners.push(fn);
}

/** Waits until stdout and stderr have handed everything to their readers (or the readers left). */
export async function flushOutput(): Promise<void> {
  // Only streams that were written to: making process.stdout costs more than the whole of `--version` (below).
  await Promise.all([stdoutStream?.flushed(), stderrStream?.flushed(), atExit, outAtEnd]);
}

/**
 * One short text straight to fd 1, for `--version` alone: Bun makes process.stdout (a Node stream) on first
 * touch, and that costs ~25 ms of CPU, more than the rest of the start (bench/README.md, issue 21). Resolves once
 * the reader has it; a reader that left is no error. Not for anything that writes more than once.
 */
export async function writeOutOnce(text: string): Promise<void> {
  try {
    await Bun.write(Bun.stdout, text);
  } catch {
    // EPIPE: `yoke --version | true`.
  }
}

/** The size of the terminal on stdout; 0 for what the system does not report (not a terminal). */
export const stdoutSize = (): { columns: number; rows: number } => ({ columns: process.stdout.columns ?? 0, rows: process.stdout.rows ?? 0 });

/**
 * For a full-screen mode: until the returned function is called, every line written to stderr (through writeErr or
 * directly by a library) goes to `onLine` instead of over the screen; write callbacks still fire, so nothing waits.
 * The returned function puts stderr back and writes out an unfinished last line. Never throws.
 */
export function divertStderr(onLine: (line: string) => void): () => void {
  const original = process.stderr.write;
  let partial = "";
  process.stderr.write = ((chunk: string | Uint8Array, a?: unknown, b?: unknown) => {
    const cb = typeof a === "function" ? a : typeof b === "function" ? b : undefined;
    const lines = (partial + (typeof chunk === "string" ? chunk : Buffer.from(chunk).toString())).split("\n");
    partial = lines.pop() ?? "";
    for (const l of lines) {
      try {
        onLine(l);
      } catch {
        // The screen is gone: the line is dropped rather than thrown into the writer.
      }
    }
    if (cb) queueMicrotask(() => (cb as (e?: Error) => void)());
    return true;
  }) as typeof process.stderr.write;
  return () => {
    process.stderr.write = original;
    if (partial) original.call(process.stderr, `${partial}\n`);
    partial = "";
  };
}
