/** `yoke rewind`: not built yet in this commit; the command module is filled in by its issue's work. */
export async function rewindCommand(argv: string[]): Promise<number> {
  process.stderr.write(`yoke rewind: not available yet (${argv.join(" ")})\n`);
  return 1;
}
