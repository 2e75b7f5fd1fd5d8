/**
 * What the model and the user are told when the sandbox failed before a command started (issue 16 review
 * point 4). The Bash tool knows it did from the sandbox's own word (the line announces on fd 3 when the
 * command starts, runtime.ts), not from what the command printed: a command that prints `bwrap: …` is its
 * own business. The first line of stderr is the tool's own report (bubblewrap, nsenter, setpriv). Pure.
 */

/** Which part of the sandbox failed, from the tool that said so. */
export type SandboxStage = "bubblewrap" | "nsenter" | "setpriv" | "seccomp" | "unknown";

const STAGES: Array<[SandboxStage, RegExp]> = [
  ["bubblewrap", /^bwrap: /],
  ["nsenter", /^nsenter: /],
  ["setpriv", /^setpriv: /],
  ["seccomp", /seccomp/i],
];

/** The tool's own line (bubblewrap's, nsenter's ...) in what the failed start printed, and which stage it names. */
export function failedStage(stderr: string): { stage: SandboxStage; said?: string } {
  const lines = stderr.split("\n").map((l) => l.trim()).filter(Boolean);
  for (const [stage, re] of STAGES) {
    const said = lines.find((l) => re.test(l));
    if (said) return { stage, said };
  }
  return { stage: "unknown", said: lines[0] };
}

/**
 * The message for a command the sandbox did not start: what failed (the stage and its own words), that the
 * command did not run, and what to do. `kept`: the command was to join the kept sandbox (holder.ts).
 */
export function startFailure(o: { kept: boolean; stderr: string }): string {
  const { stage, said } = failedStage(o.stderr);
  const words = said ? said.replace(/^(bwrap|nsenter|setpriv): /, "") : "it printed nothing";
  if (o.kept)
    return (
      `the kept sandbox could not be entered (${stage === "unknown" ? "joining it" : stage} failed: ${words}), so the command did not run. ` +
      "yoke stops keeping a sandbox for this session: run the command again and it starts in a bubblewrap of its own " +
      "(YOKE_SANDBOX_KEEP=0 does that from the start)"
    );
  if (stage === "bubblewrap")
    return (
      `bubblewrap failed: ${words}. The sandbox could not be set up, so the command did not run. ` +
      "`yoke doctor` says whether the sandbox can start here and why; tell the user rather than retrying the same way"
    );
  return (
    `the sandbox failed before the command started (${stage === "unknown" ? "no tool named the cause" : `${stage} failed`}: ${words}), so the command did not run. ` +
    "`yoke doctor` says whether the sandbox can start here and why; tell the user rather than retrying the same way"
  );
}
