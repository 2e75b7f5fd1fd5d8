import type { Provider } from "../provider/types.ts";
import { NOT_PLAIN } from "../permission/bash-plain.ts";

/**
 * The shell parser (mvdan-sh, ~100 ms of CPU to start) loads on the first Bash command that is not a program and plain
 * words: `cd app && npm test`, a pipe, a quote. It loaded in the tool's path, after the model's answer, when the
 * permission check asked for it. A model writes a command over many stream events, so the parser can load while the
 * rest of the answer is still arriving (issue 21: lazy loads off the tool turn's path). A plain command never loads it.
 */

/** The part of a Bash call's `command` a partial input JSON already holds, decoded; undefined before it starts. Pure. */
export function partialCommand(partialJson: string): string | undefined {
  const m = /"command"\s*:\s*"((?:[^"\\]|\\.)*)(\\?)/.exec(partialJson);
  if (!m) return undefined;
  // Without its unfinished escape (a lone `\` at the end, or `\u` and fewer than four digits), the prefix decodes.
  const body = m[1]!.replace(/\\u[0-9a-fA-F]{0,3}$/, "");
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return undefined;
  }
}

/**
 * Watches one answer's stream events; calls `warm` once, as soon as a Bash call's command so far holds a character no
 * plain command holds (src/permission/bash-plain.ts: such text goes to the parser), and `onBash` once, when a Bash
 * call's block starts (every Bash call is checked, plain or not). Returns the event handler.
 */
export function bashCommandWatcher(warm: () => void, onBash?: () => void): (event: Record<string, unknown>) => void {
  const inputs = new Map<number, string>();
  let done = false;
  let started = false;
  return (event) => {
    if (done) return;
    const index = typeof event.index === "number" ? event.index : -1;
    if (event.type === "content_block_start") {
      const block = event.content_block as { type?: string; name?: string; input?: unknown } | undefined;
      if (block?.type !== "tool_use" || block.name !== "Bash") return;
      if (!started) {
        started = true;
        onBash?.();
      }
      inputs.set(index, "");
      // An input given whole at the start (not streamed) is looked at as it is.
      const whole = block.input && typeof block.input === "object" ? (block.input as { command?: unknown }).command : undefined;
      if (typeof whole === "string" && NOT_PLAIN.test(whole)) {
        done = true;
        warm();
      }
      return;
    }
    if (event.type !== "content_block_delta" || !inputs.has(index)) return;
    const delta = event.delta as { type?: string; partial_json?: unknown } | undefined;
    if (delta?.type !== "input_json_delta" || typeof delta.partial_json !== "string") return;
    const json = inputs.get(index)! + delta.partial_json;
    inputs.set(index, json);
    const command = partialCommand(json);
    if (command !== undefined && NOT_PLAIN.test(command)) {
      done = true;
      warm();
    }
  };
}

/** `warm` once a process, on a later tick (after what the stream's own tick still does); a warm that throws is dropped. */
function onceLater(warm: () => void): { run: () => void; done: () => boolean } {
  let ran = false;
  return {
    run: () => {
      if (ran) return;
      ran = true;
      setTimeout(() => {
        try {
          warm();
        } catch {
          // Only a head start: the permission check loads what it needs itself and reports what fails there.
        }
      }, 0);
    },
    done: () => ran,
  };
}

/**
 * The provider, with the shell parser loaded (`warm`, on a later tick) while an answer's Bash command that will need it
 * is still streaming, and the Bash checker (`warmChecker`) as soon as a Bash call's block starts: the checker's modules
 * load while the rest of the answer streams in and the call's PreToolUse hooks run (a tick later: after what the
 * answer's own tick does, its hooks' processes started), not in the permission check after them (issue 21). Once a
 * process each: what loaded stays loaded.
 */
export function warmShellParserWhileStreaming(provider: Provider, warm: () => void, warmChecker?: () => void): Provider {
  const parser = onceLater(warm);
  const checker = warmChecker ? onceLater(warmChecker) : { run: () => {}, done: () => true };
  const warmed = () => parser.done() && checker.done();
  return {
    ...provider,
    async *stream(req, signal) {
      if (warmed()) return yield* provider.stream(req, signal);
      const watch = bashCommandWatcher(parser.run, checker.run);
      for await (const ev of provider.stream(req, signal)) {
        if (ev.type === "stream_event" && !warmed()) watch(ev.event);
        yield ev;
      }
    },
  };
}
