import { randomUUID } from "../../util/random.ts";
import { yokeDir } from "../../config/paths.ts";
import { defineCommand } from "citty";
import { errLine, writeOut } from "../../util/output.ts";
import { parseArgv } from "../args.ts";
import { runFlagArgs } from "../command-tree.ts";
import { runEnv } from "../compose.ts";
import { buildPermissionEvaluator, loadSettingsFromArgs, resolvePermissionMode } from "../permission-wiring.ts";
import { wireSandbox } from "../sandbox-wiring.ts";
import { runProcess } from "../../util/subprocess.ts";

/**
 * `yoke doctor [--json]`: whether Bash runs inside the kernel sandbox here, and why (or why not),
 * with the view it gets from the permission rules. When it is on, one empty command is run through it
 * to prove the whole chain starts. Exit 1 when the sandbox is required and cannot start.
 */
async function doctorCommand(argv: string[]): Promise<number> {
  const json = argv.includes("--json");
  const args = parseArgv(argv.filter((a) => a !== "--json"));
  const cwd = process.cwd();
  const settings = loadSettingsFromArgs(args, cwd);
  const warnings: string[] = [];
  const env = runEnv(settings, (m) => warnings.push(m));
  const permissions = buildPermissionEvaluator({ args, cwd, settings, env, mode: resolvePermissionMode(args, settings), autoAllowWriteDirs: [] });
  const sb = await wireSandbox({ settings, env, permissions, sessionId: `doctor-${randomUUID()}`, yokeDir: yokeDir(env), warn: (m) => warnings.push(m) });
  // What the settings got wrong (a field ignored, a bad value) is said, as a run says it; the sandbox's own "off" is the report's.
  for (const w of warnings) if (!w.startsWith("the Bash sandbox is off:")) errLine(`yoke: ${w}`);
  let check: { ok: boolean; detail: string } | undefined;
  if (sb.active) {
    const w = await sb.wrap("true", cwd);
    if (!w.ok) check = { ok: false, detail: w.error };
    else {
      const r = await runProcess(["/bin/sh", "-c", w.command], { cwd, env, timeoutMs: 30_000 });

      sb.release(w.placeholders);
      check = r.code === 0 ? { ok: true, detail: "a sandboxed command ran" } : { ok: false, detail: (r.error || r.stderr || (r.timedOut ? "no answer within 30 s" : `exit ${r.code}`)).trim().split("\n")[0]! };
    }
    await sb.shutdown();
  }
  const a = sb.availability;
  const backend = a?.ok ? (a.platform === "linux" ? `bubblewrap ${a.version} (${a.bwrap})` : "Seatbelt (sandbox-exec)") : undefined;
  const on = sb.active && check?.ok === true;
  if (json) {
    writeOut(
      `${JSON.stringify({ sandbox: on ? "on" : "off", reason: on ? undefined : (check?.detail ?? sb.reason), backend, autoAllowBash: on && sb.autoAllow, policy: sb.policy }, null, 2)}\n`,
    );
  } else {
    const lines: string[] = [];
    if (on) {
      const p = sb.policy!;
      lines.push(`sandbox: on — Bash and everything it starts run inside ${backend}; ${check!.detail}`);
      lines.push(`  writable:        ${p.allowWrite.join(", ")}`);
      if (p.denyWrite.length) lines.push(`  read-only there: ${p.denyWrite.join(", ")}`);
      lines.push(`  unreadable:      ${p.denyRead.length ? p.denyRead.join(", ") : "(no Read deny rules)"}`);
      lines.push(`  network:         ${p.allowedDomains.length ? `only ${p.allowedDomains.join(", ")} (through a filtering proxy)` : "none"}`);
      lines.push(`  auto-allow Bash: ${sb.autoAllow ? "yes (sandbox.autoAllowBashIfSandboxed)" : "no (commands are asked about as without the sandbox)"}`);
      if (sb.notice) lines.push(`  note:            ${sb.notice}`);
    } else {
      lines.push(`sandbox: off — ${check?.detail ?? sb.reason}`);
      lines.push("  Bash commands are checked by the permission rules alone.");
    }
    writeOut(`${lines.join("\n")}\n`);
  }
  return sb.active && !on && sb.wish.want === "on" && sb.wish.required ? 1 : 0;
}

export const command = defineCommand({
  meta: { name: "doctor", description: "Whether Bash runs inside the kernel sandbox here, and why; the view it gets from the permission rules" },
  args: {
    json: { type: "boolean", description: "Print JSON" },
    ...runFlagArgs(["settings", "setting-sources", "add-dir", "allowedTools", "disallowedTools", "permission-mode"]),
  },
  run: ({ rawArgs }) => doctorCommand(rawArgs),
});
