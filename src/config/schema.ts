import "../util/zod-setup.ts"; // first: zod reads the setting as each schema is made, and these are made at import
import { z } from "zod";
import { hookSchemas } from "./hooks-schema.ts";

const stringArray = z.array(z.string());

// The hooks' schemas are their own module: a run needs them (plugins', agents' and skills' hooks), not the rest of
// these, which only a settings file the quick check is not sure of loads (load.ts). Making every schema here at import
// cost a one-turn run ~4 ms of CPU (issue 21).
export { hookSchemas, type HookHandlerConfig } from "./hooks-schema.ts";

export const permissionsSchema = z.looseObject({
  allow: stringArray.optional(),
  ask: stringArray.optional(),
  deny: stringArray.optional(),
  defaultMode: z.enum(["default", "manual", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"]).optional(),
  additionalDirectories: stringArray.optional(),
  disableBypassPermissionsMode: z.literal("disable").optional(),
  disableAutoMode: z.literal("disable").optional(),
  denyInsteadOfPrompting: z.boolean().optional(),
});

/** Claude Code's `sandbox` block (contracts §2.2); yoke reads these keys and keeps the rest. */
export const sandboxSettingsSchema = z.looseObject({
  enabled: z.boolean().optional(),
  autoAllowBashIfSandboxed: z.boolean().optional(),
  excludedCommands: stringArray.optional(),
  allowUnsandboxedCommands: z.boolean().optional(),
  failIfUnavailable: z.boolean().optional(),
  enableWeakerNestedSandbox: z.boolean().optional(),
  allowNestedUserNamespaces: z.boolean().optional(),
  bwrapPath: z.string().optional(),
  socatPath: z.string().optional(),
  network: z
    .looseObject({
      allowedDomains: stringArray.optional(),
      deniedDomains: stringArray.optional(),
      allowUnixSockets: stringArray.optional(),
      allowAllUnixSockets: z.boolean().optional(),
      allowLocalBinding: z.boolean().optional(),
      httpProxyPort: z.number().int().min(1).max(65535).optional(),
      socksProxyPort: z.number().int().min(1).max(65535).optional(),
    })
    .optional(),
  filesystem: z
    .looseObject({
      allowWrite: stringArray.optional(),
      denyWrite: stringArray.optional(),
      denyRead: stringArray.optional(),
      allowRead: stringArray.optional(),
    })
    .optional(),
});

const textOrList = z.union([z.string(), stringArray]);

/** Auto mode's classifier (issue 19): which model, and guidance added to our prompt (never replacing it). */
export const autoModeSettingsSchema = z.looseObject({
  classifierModel: z.string().optional(),
  instructions: textOrList.optional(),
  // Claude Code's own autoMode lists, read as further guidance lines.
  environment: stringArray.optional(),
  allow: stringArray.optional(),
  soft_deny: stringArray.optional(),
  hard_deny: stringArray.optional(),
});

/** Claude Code's settings keys that yoke reads (contracts §2.2). Unknown keys are kept and ignored. */
export const settingsSchema = z.looseObject({
  $schema: z.string().optional(),
  permissions: permissionsSchema.optional(),
  autoMode: autoModeSettingsSchema.optional(),
  env: z.record(z.string(), z.coerce.string()).optional(),
  hooks: hookSchemas().hooksSchema.optional(),
  disableAllHooks: z.boolean().optional(),
  allowManagedHooksOnly: z.boolean().optional(),
  model: z.string().optional(),
  fallbackModel: z.union([z.string(), stringArray]).optional(),
  attribution: z
    .union([z.boolean(), z.looseObject({ commit: z.string().optional(), pr: z.string().optional(), sessionUrl: z.boolean().optional() })])
    .optional(),
  includeCoAuthoredBy: z.boolean().optional(),
  includeGitInstructions: z.boolean().optional(),
  autoMemoryEnabled: z.boolean().optional(),
  autoMemoryDirectory: z.string().optional(),
  autoCompactEnabled: z.boolean().optional(),
  autoCompactWindow: z.number().int().positive().optional(),
  cleanupPeriodDays: z.number().int().min(1).optional(),
  enabledPlugins: z.record(z.string(), z.boolean()).optional(),
  respectGitignore: z.boolean().optional(),
  fileCheckpointingEnabled: z.boolean().optional(),
  claudeMdExcludes: stringArray.optional(),
  outputStyle: z.string().optional(),
  verbose: z.boolean().optional(),
  apiKeyHelper: z.string().optional(),
  sandbox: sandboxSettingsSchema.optional(),
  /** contracts §2.2: think on every request (false turns adaptive thinking off). */
  alwaysThinkingEnabled: z.boolean().optional(),
  /** contracts §2.2: effort level for models that take one (checked in provider/model-params.ts, naming the key). */
  effortLevel: z.string().optional(),
  /** yoke: first-party and user plugins switched on or off by name. */
  plugins: z.record(z.string(), z.boolean()).optional(),
  /** yoke: load instruction files the claw-code way (contracts §8, seed 002). */
  instructionLoader: z.enum(["claude-code", "claw-code"]).optional(),
  memoryExtraction: z.boolean().optional(),
  sessionMemory: z.boolean().optional(),
  relevantMemory: z.boolean().optional(),
  /** yoke: write credential-shaped strings to transcripts as [REDACTED] (default true). */
  redactTranscripts: z.boolean().optional(),
});

export type Settings = z.infer<typeof settingsSchema>;
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;
