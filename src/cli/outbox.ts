import type { LoopEvent } from "../loop/events.ts";

/**
 * Out-of-band events (hook lines, subagent frames, plugin notices). Queued until a mode sets a sink, then
 * delivered at once, so they appear in stream-json when they happen, between the loop's own lines.
 */
export type Outbox = { push(ev: LoopEvent): void; setSink(sink: ((ev: LoopEvent) => void) | null): void; drain(): LoopEvent[] };

export function createOutbox(): Outbox {
  const queue: LoopEvent[] = [];
  let sink: ((ev: LoopEvent) => void) | null = null;
  return {
    push: (ev) => (sink ? sink(ev) : void queue.push(ev)),
    setSink(s) {
      sink = s;
      if (s) for (const ev of queue.splice(0)) s(ev);
    },
    drain: () => queue.splice(0),
  };
}

