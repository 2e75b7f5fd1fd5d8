import type { PermissionDecision, PermissionQuery } from "../permission/types.ts";
import { resolveModel } from "../provider/models.ts";
import type { TextBlock } from "../provider/types.ts";
import type { Tool, ToolResult } from "../tool/types.ts";
import { commandMarker, expandBody, ExpansionError, type InvokeDeps } from "./invoke.ts";
import { reinjectedSkills, skillListing, type InvokedSkill } from "./listing.ts";
import type { RenderVars } from "./render.ts";
import { createSkillTool } from "./skill-tool.ts";
import type { ExtensionProblem, SlashCommand, SlashCommandInfo } from "./types.ts";

/** The permission evaluator as extensions use it: decide, and the temporary `allowed-tools` grant. */
export type GrantingEvaluator = {
  decide(q: PermissionQuery): PermissionDecision;
  grant(rules: string[]): void;
  readonly granted: readonly string[];
};

export type ExtensionsOptions = {
  commands: SlashCommand[];
  problems: ExtensionProblem[];
  cwd: () => string;
  vars: () => RenderVars;
  permissions: GrantingEvaluator;
  /** Whether a command's `allowed-tools` may grant anything (project files only in a trusted folder). */
  mayGrant: (cmd: SlashCommand) => boolean;
  runShell: InvokeDeps["runShell"];
  /** Called once per skill or command the first time it is used (its frontmatter hooks join the session). */
  onFirstUse?: (cmd: SlashCommand) => void;
  warn: (message: string) => void;
  /** Characters the listing may take (listingLimits). */
  listingBudget: number;
  /** Characters one description may take in the listing (default 1536). */
  listingMaxDescription?: number;
  /**
   * Runs a `context: fork` skill's expanded body as the prompt of a subagent of type `agent` (contracts §6.2); its
   * final text, or an error text. Undefined: such skills expand inline like any other.
   */
  fork?: (req: { agent: string; prompt: string; model?: string; name: string }, signal: AbortSignal) => Promise<{ text: string; isError: boolean }>;
};

/** The agent a `context: fork` skill runs in when it names none (observed in 2.1.332). */
export const DEFAULT_FORK_AGENT = "general-purpose";

/** A user's `/name args` prompt, expanded. */
export type SlashExpansion = { cmd: SlashCommand; args: string; prompt: TextBlock[] };

/** A session's skills and commands: the `/` prompt, the Skill tool, the context listing, re-injection. */
export type Extensions = {
  readonly commands: readonly SlashCommand[];
  readonly problems: readonly ExtensionProblem[];
  find(name: string): SlashCommand | undefined;
  /** `/name args` when name is a user-invocable skill or command; null for anything else. Pure. */
  parse(input: string): { cmd: SlashCommand; args: string } | null;
  /** Expands a user's slash prompt, granting its `allowed-tools` for the turn. Throws ExpansionError naming the file. */
  expandPrompt(cmd: SlashCommand, args: string, signal: AbortSignal): Promise<SlashExpansion>;
  /**
   * Runs a `context: fork` skill or command in a subagent: its body expanded (its `allowed-tools` granted for the
   * run), then the subagent's answer. Throws ExpansionError naming the file when the body cannot be expanded.
   */
  runForked(cmd: SlashCommand, args: string, signal: AbortSignal): Promise<{ text: string; isError: boolean }>;
  /** A new user message: the previous command's grant (and its model) ends (contracts §6.2). */
  beginPrompt(): void;
  /**
   * The model a skill or command the model loaded through Skill names in its `model:` frontmatter, for the rest of
   * the turn (Claude Code keeps it as a layer that ends with the next user message, like the `allowed-tools` grant);
   * undefined when none did.
   */
  turnModel(): string | undefined;
  /** The Skill tool, or null when nothing is model-invocable. */
  tool: Tool | null;
  /** The names and descriptions for the system prompt, or null. */
  listing(): string | null;
  /** Invoked skills' bodies for the context after compaction, or null. */
  reinjection(): string | null;
  /** The `/` menu rows. */
  list(): SlashCommandInfo[];
};

const SLASH = /^\/([^\s/]+)(?:\s+([\s\S]*))?$/;

/** Builds the session's extensions from discovered commands. Never throws. */
export function createExtensions(o: ExtensionsOptions): Extensions {
  // Made on first use: most prompts are no slash command, and startup should not pay for the table (issue 14 point 7).
  let table: Map<string, SlashCommand> | undefined;
  const byName = {
    get(n: string): SlashCommand | undefined {
      if (!table) {
        table = new Map();
        for (const c of o.commands) for (const k of [c.name, ...c.aliases]) if (!table.has(k)) table.set(k, c);
      }
      return table.get(n);
    },
  };
  const invoked: InvokedSkill[] = [];
  const idep: InvokeDeps = { cwd: o.cwd, vars: o.vars, decide: (q) => o.permissions.decide(q), runShell: o.runShell, warn: o.warn };
  const grantFor = (cmd: SlashCommand) => (o.mayGrant(cmd) ? cmd.allowedTools : []);
  const used = new Set<SlashCommand>();
  let modelOfTurn: string | undefined;
  const remember = (cmd: SlashCommand, blocks: TextBlock[]) => {
    if (!used.has(cmd)) {
      used.add(cmd);
      o.onFirstUse?.(cmd);
    }
    if (cmd.kind === "skill") invoked.push({ name: cmd.name, path: cmd.file, content: blocks.map((b) => b.text).join("\n\n") });
  };

  /** A fork's body is its subagent's prompt; the skill is not re-injected after compaction (it never entered the context). */
  const forked = async (cmd: SlashCommand, args: string, signal: AbortSignal) => {
    const blocks = await expandBody(cmd, args, idep, signal);
    if (!used.has(cmd)) {
      used.add(cmd);
      o.onFirstUse?.(cmd);
    }
    const prompt = blocks.map((b) => b.text).join("\n\n");
    return o.fork!({ agent: cmd.fork?.agent ?? DEFAULT_FORK_AGENT, prompt, name: cmd.name, ...(cmd.model ? { model: cmd.model } : {}) }, signal);
  };

  const invokeForModel = async (raw: string, args: string, signal: AbortSignal): Promise<ToolResult> => {
    const name = raw.trim().replace(/^\//, "");
    const cmd = byName.get(name);
    if (!cmd) {
      const known = o.commands.filter((c) => !c.disableModelInvocation).map((c) => c.name);
      return { content: `Unknown skill "${name}". Available: ${known.join(", ") || "none"}.`, isError: true };
    }
    if (cmd.disableModelInvocation)
      return { content: `"${name}" can only be run by the user (disable-model-invocation); do not call it through Skill.`, isError: true };
    const before = o.permissions.granted;
    const extra = grantFor(cmd).filter((r) => !before.includes(r));
    if (extra.length) o.permissions.grant([...before, ...extra]);
    try {
      if (cmd.fork && o.fork) {
        const r = await forked(cmd, args, signal);
        if (r.isError) return { content: r.text, isError: true };
        // The tool result as Claude Code 2.1.332 words it for a forked skill.
        return { content: `Skill "${cmd.name}" completed (forked execution).\n\nResult:\n${r.text}`, details: { success: true, commandName: cmd.name, status: "forked" } };
      }
      const blocks = await expandBody(cmd, args, idep, signal);
      remember(cmd, blocks);
      if (cmd.model) modelOfTurn = resolveModel(cmd.model);
      return {
        content: blocks,
        details: { success: true, commandName: cmd.name, ...(extra.length ? { allowedTools: cmd.allowedTools } : {}), ...(cmd.model ? { model: modelOfTurn } : {}) },
      };
    } catch (e) {
      if (extra.length) o.permissions.grant([...before]);
      if (e instanceof ExpansionError) return { content: e.message, isError: true };
      throw e;
    }
  };

  const hasModelInvocable = o.commands.some((c) => !c.disableModelInvocation);
  let listingText: string | null | undefined;
  return {
    commands: o.commands,
    problems: o.problems,
    find: (n) => byName.get(n),
    parse(input) {
      if (!o.commands.length || !input.trimStart().startsWith("/")) return null;
      const m = SLASH.exec(input.trim());
      if (!m) return null;
      const cmd = byName.get(m[1]!);
      return cmd && cmd.userInvocable ? { cmd, args: (m[2] ?? "").trim() } : null;
    },
    async expandPrompt(cmd, args, signal) {
      o.permissions.grant(grantFor(cmd));
      try {
        const blocks = await expandBody(cmd, args, idep, signal);
        remember(cmd, blocks);
        return { cmd, args, prompt: [commandMarker(cmd.name, args), ...blocks] };
      } catch (e) {
        o.permissions.grant([]);
        throw e;
      }
    },
    async runForked(cmd, args, signal) {
      if (!o.fork) throw new ExpansionError(`${cmd.file}: /${cmd.name} runs in a forked subagent (context: fork), and this session cannot start one`);
      o.permissions.grant(grantFor(cmd));
      return forked(cmd, args, signal);
    },
    beginPrompt: () => {
      modelOfTurn = undefined;
      o.permissions.grant([]);
    },
    turnModel: () => modelOfTurn,
    tool: hasModelInvocable ? createSkillTool(invokeForModel) : null,
    // The commands are fixed for the session: the listing is made once, on the first request.
    listing: () => (listingText === undefined ? (listingText = skillListing(o.commands, o.listingBudget, o.listingMaxDescription)) : listingText),
    reinjection: () => reinjectedSkills(invoked),
    list: () =>
      o.commands
        .filter((c) => c.userInvocable)
        .map((c) => ({
          name: c.name,
          description: c.description,
          ...(c.argumentHint ? { argumentHint: c.argumentHint } : {}),
          kind: c.kind,
          source: c.plugin ? `plugin:${c.plugin.name}` : c.source,
          modelInvocable: !c.disableModelInvocation,
        })),
  };
}

/**
 * The `/` menu of a session (for the interactive terminal, issue 12): every user-invocable skill and custom
 * command with its description, argument hint and source. Built-in commands (`/compact`) are the caller's.
 */
export const listSlashCommands = (rt: { extensions: Extensions }): SlashCommandInfo[] => rt.extensions.list();

export { extendedTurn } from "./slash-turn.ts";
