import { createConsola, LogLevels, type ConsolaInstance, type ConsolaReporter, type LogObject } from "consola/core";
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { writeErr } from "./output.ts";

/**
 * yoke's diagnostics on stderr, through consola: levels (error, warn, log by default; info with
 * `--verbose`; debug with `--debug`), tags for who is speaking (`log.withTag("plugin attribution")`),
 * and one plain line per message, `yoke: …` as before, so scripts that read stderr keep working. On a
 * terminal warnings and errors are coloured. consola/core with our reporter, not consola's fancy one:
 * that one costs tens of milliseconds of startup for boxes and icons a pipe must not get anyway.
 */
export type Diagnostics = ConsolaInstance;

export type DiagnosticsOptions = {
  verbose?: boolean;
  debug?: boolean;
  /** `--debug`: every line is also appended to this file, whose path is said once on stderr (issue 17.12). */
  logFile?: string;
  /** Where lines go (default stderr through util/output.ts, which the exit path waits for). */
  stream?: { write(text: string): unknown; isTTY?: boolean };
};

const COLOURS: Record<string, string> = { error: "31", fatal: "31", warn: "33", debug: "90", trace: "90" };

/** One line per message: `yoke: text` or `yoke [tag]: text`, errors and warnings named as such when tagged. */
export function plainReporter(stream: NonNullable<DiagnosticsOptions["stream"]>): ConsolaReporter {
  return {
    log(obj: LogObject) {
      const text = obj.args.map((a) => (a instanceof Error ? a.message : typeof a === "string" ? a : JSON.stringify(a))).join(" ");
      const head = obj.tag ? `yoke [${obj.tag}]` : "yoke";
      const kind = obj.tag && (obj.type === "warn" || obj.type === "error") ? `${obj.type === "warn" ? "warning" : "error"}: ` : "";
      const colour = stream.isTTY ? COLOURS[obj.type] : undefined;
      const line = `${head}: ${kind}${text}`;
      stream.write(`${colour ? `\x1b[${colour}m${line}\x1b[39m` : line}\n`);
    },
  };
}

/** A diagnostics channel at the level the flags ask for. Never throws. */
export function createDiagnostics(o: DiagnosticsOptions = {}): Diagnostics {
  // isatty, not process.stderr.isTTY: Bun makes the Node stream on first touch (~8 ms of CPU), and a run that
  // writes no diagnostic need not make it before its first request (issue 21). Asked at the first line written:
  // importing node:tty alone costs a start ~4 ms of CPU (Bun 1.4.5).
  let tty: boolean | undefined;
  let stream = o.stream ?? {
    write: writeErr,
    get isTTY() {
      return (tty ??= (require("node:tty") as typeof import("node:tty")).isatty(2));
    },
  };
  if (o.logFile) {
    const file = o.logFile;
    const out = stream;
    try {
      mkdirSync(dirname(file), { recursive: true });
      appendFileSync(file, "");
      out.write(`yoke: debug log: ${file}\n`);
      stream = {
        get isTTY() {
          return out.isTTY;
        },
        write(text) {
          out.write(text);
          try {
            appendFileSync(file, text);
          } catch {
            // The log is a copy: stderr still has the line.
          }
        },
      };
    } catch (err) {
      out.write(`yoke: cannot write the debug log ${file}: ${(err as Error).message}\n`);
    }
  }
  return createConsola({
    level: o.debug ? LogLevels.debug : o.verbose ? LogLevels.info : LogLevels.log,
    reporters: [plainReporter(stream)],
    // Every line counts (a repeated hook failure is repeated news), so no collapsing of repeats.
    throttle: 0,
  });
}
