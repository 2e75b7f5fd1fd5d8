import { z } from "zod";
import type { Tool, ToolContext, ToolResult } from "./types.ts";

export type ToolDef<S extends z.ZodType> = {
  name: string;
  aliases?: string[];
  description: string;
  /**
   * The input's zod schema, or a function that makes it: made then on the first validation, so a run that never
   * calls the tool never builds it (building zod schemas is most of a start's module loading, issue 21).
   */
  input: S | (() => S);
  /**
   * The input's JSON Schema when it is known ahead, exactly what zod would make of `input` (a test keeps them
   * equal): converting a zod schema costs a tool made at startup a millisecond or more of cold CPU. Without it the
   * conversion runs when the schema is first read.
   */
  jsonSchema?: Record<string, unknown>;
  readOnly: boolean | ((input: z.infer<S>) => boolean);
  concurrencySafe?: boolean | ((input: z.infer<S>) => boolean);
  /** Characters of model-facing text beyond which the result is cut (head and tail kept). */
  maxResultChars?: number;
  /** Not called once ctx.signal is aborted. May throw: a thrown Error becomes an is_error result carrying its message. */
  execute(input: z.infer<S>, ctx: ToolContext): Promise<ToolResult> | ToolResult;
};

const DEFAULT_MAX_RESULT = 100_000;

/** Turns zod issues into one instruction the model can act on. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const where = i.path.length ? i.path.join(".") : "input";
      return `- ${where}: ${i.message}`;
    })
    .join("\n");
}

/** The result of a tool stopped by the user's interrupt (ctx.signal). */
export const interrupted = (toolName: string): ToolResult => ({ content: `${toolName} was interrupted by the user.`, isError: true });

/**
 * Cuts the middle out of `text` so at most `max` characters remain, head and tail kept. `alreadyOmitted`
 * counts what a caller dropped before (e.g. Bash's byte collector), so the note states the true size.
 */
export function truncateMiddle(text: string, max: number, alreadyOmitted = 0): string {
  if (text.length <= max) return text;
  const half = Math.max(0, Math.floor((max - 80) / 2));
  const cut = text.length - 2 * half + alreadyOmitted;
  const total = text.length + alreadyOmitted;
  return `${text.slice(0, half)}\n\n... [${cut} characters truncated; output was ${total} characters] ...\n\n${text.slice(text.length - half)}`;
}

/** What the model sees of a tool's input: zod's draft-7 JSON Schema of it, without `$schema`. */
export function toolJsonSchema(input: z.ZodType): Record<string, unknown> {
  const jsonSchema = z.toJSONSchema(input, { target: "draft-7", io: "input" }) as Record<string, unknown>;
  delete jsonSchema.$schema;
  return jsonSchema;
}

/** The one way to make a tool: validation, truncation and error conversion live here. */
export function defineTool<S extends z.ZodType>(def: ToolDef<S>): Tool<z.infer<S>> {
  const max = def.maxResultChars ?? DEFAULT_MAX_RESULT;
  let schema: S | undefined = typeof def.input === "function" ? undefined : def.input;
  const input = (): S => (schema ??= (def.input as () => S)());
  let jsonSchema = def.jsonSchema;
  const parse = (raw: unknown) => {
    const r = input().safeParse(raw);
    if (r.success) return { ok: true as const, input: r.data };
    return {
      ok: false as const,
      error: `InputValidationError: ${def.name} was called with invalid input. Fix these and call it again:\n${describeIssues(r.error)}`,
    };
  };
  return {
    name: def.name,
    aliases: def.aliases,
    description: def.description.trim(),
    get inputSchema() {
      return input() as unknown as z.ZodType<z.infer<S>>;
    },
    get jsonSchema() {
      return (jsonSchema ??= toolJsonSchema(input()));
    },
    set jsonSchema(s: Record<string, unknown>) {
      jsonSchema = s;
    },
    readOnly: def.readOnly,
    concurrencySafe: def.concurrencySafe ?? def.readOnly,
    parse,
    async run(raw, ctx) {
      const p = parse(raw);
      if (!p.ok) return { content: p.error, isError: true };
      // Checked here once so no tool starts work after an interrupt.
      if (ctx.signal.aborted) return interrupted(def.name);
      try {
        const result = await def.execute(p.input, ctx);
        if (typeof result.content === "string") result.content = truncateMiddle(result.content, max);
        return result;
      } catch (err) {
        if (ctx.signal.aborted) return interrupted(def.name);
        const msg = err instanceof Error ? err.message : String(err);
        return { content: `Error: ${msg}`, isError: true };
      }
    },
  };
}

export const isReadOnly = (tool: Tool, input: unknown): boolean =>
  typeof tool.readOnly === "function" ? tool.readOnly(input) : tool.readOnly;
export const isConcurrencySafe = (tool: Tool, input: unknown): boolean =>
  typeof tool.concurrencySafe === "function" ? tool.concurrencySafe(input) : tool.concurrencySafe;
