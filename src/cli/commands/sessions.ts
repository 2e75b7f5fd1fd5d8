/** `yoke sessions`: not built yet in this commit; the command module is filled in by its issue's work. */
export async function sessionsCommand(argv: string[]): Promise<number> {
  process.stderr.write(`yoke sessions: not available yet (${argv.join(" ")})\n`);
  return 1;
}
