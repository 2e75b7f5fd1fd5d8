/** Where a skill or command was defined; also its precedence on a name clash (contracts §6.2, §6.3). */
export type ExtensionSource = "managed" | "user" | "project" | "plugin";

/** The plugin a skill, command or output style came from (its placeholders and namespace). */
export type PluginOrigin = { name: string; root: string; dataDir: string };

/**
 * One skill (`<dir>/SKILL.md`) or custom slash command (`commands/**\/*.md`), as discovered: metadata only.
 * The body is read when the command runs (seed 000: bodies load on use). Plain data.
 */
export type SlashCommand = {
  /** What follows `/` and what the Skill tool's `skill` names: `review`, `my-plugin:review`. */
  name: string;
  /** Other names it answers to: `frontend:component` for `commands/frontend/component.md`. */
  aliases: string[];
  kind: "skill" | "command";
  source: ExtensionSource;
  /** The SKILL.md or command file. */
  file: string;
  /** A skill's folder (its other files sit there); null for a command. */
  baseDir: string | null;
  plugin?: PluginOrigin;
  description: string;
  whenToUse?: string;
  argumentHint?: string;
  /** Named positional arguments (`arguments:` frontmatter) for `$name`. */
  argNames: string[];
  /** Permission rules granted while it runs (`allowed-tools`). */
  allowedTools: string[];
  model?: string;
  /** `disable-model-invocation: true`: only the user can run it, and it is not listed to the model. */
  disableModelInvocation: boolean;
  /** `user-invocable: false`: only the model can run it (no `/` entry). */
  userInvocable: boolean;
  /**
   * `context: fork` (contracts §6.2): the expanded body is the prompt of a subagent of type `agent` (default
   * general-purpose), which runs without the conversation's history; its final text is the result.
   */
  fork?: { agent?: string };
  /** Frontmatter `hooks`, as written: they join the session once the skill or command is used (contracts §1.2). */
  hooks?: unknown;
};

/** A file that could not be loaded or was shadowed, named; reported once. */
export type ExtensionProblem = { file: string; message: string };

/** The row a `/` menu shows (the terminal UI's list; issue 12). */
export type SlashCommandInfo = {
  name: string;
  description: string;
  argumentHint?: string;
  kind: "skill" | "command";
  /** `user`, `project`, `managed`, or `plugin:<name>`. */
  source: string;
  modelInvocable: boolean;
};
