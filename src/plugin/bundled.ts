import attribution from "../../plugins/attribution/index.ts";
import type { Plugin } from "./types.ts";

/** First-party plugins compiled into the binary. They load through the same door as a user's plugin. */
export function bundledPlugins(): Plugin[] {
  return [attribution];
}
