import type { Tool } from "../types.ts";
import { createGlobTool } from "./glob.ts";
import { createGrepTool } from "./grep.ts";

export { createWebFetchTool, type WebFetchToolOptions, upgradeUrl } from "./web-fetch.ts";

export { createGlobTool, type GlobToolOptions } from "./glob.ts";
export { createGrepTool, type GrepToolOptions } from "./grep.ts";


/** Glob and Grep with default options (Grep's engine chosen per call from ctx.env: YOKE_GREP_ENGINE, then rg on PATH). */
export const searchTools: Tool[] = [createGlobTool(), createGrepTool()];
