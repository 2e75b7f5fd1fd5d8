/** `yoke <command>`: each command module is loaded only when asked for. */
export async function runSubcommand(name: string, argv: string[]): Promise<number> {
  process.stderr.write(`yoke ${name}: not available in this build (${argv.join(" ")})\n`);
  return 1;
}
