import { findSession, formatSessionList, formatSessionShow, listSessions, loadTranscript } from "../../session/index.ts";
import { UsageError } from "../args.ts";
import { writeOut, writeErr } from "../../util/output.ts";

type Env = Record<string, string | undefined>;

const USAGE = "usage: yoke sessions list [--json] | yoke sessions show ID [--json]";

/**
 * `yoke sessions list|show` (issue 7, contracts §5.3): the sessions of the current project, newest
 * first, or one session's transcript. Throws UsageError for bad arguments or an unknown id.
 */
export async function sessionsCommand(argv: string[], o: { cwd?: string; env?: Env } = {}): Promise<number> {
  const cwd = o.cwd ?? process.cwd();
  const env = o.env ?? process.env;
  const json = argv.includes("--json");
  const rest = argv.filter((a) => a !== "--json");
  const unknown = rest.find((a) => a.startsWith("-"));
  if (unknown) throw new UsageError(`unknown option ${unknown}. ${USAGE}`);
  const [sub = "list", id, ...extra] = rest;
  if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'. ${USAGE}`);
  if (sub === "list") {
    if (id !== undefined) throw new UsageError(`'sessions list' takes no id. ${USAGE}`);
    const rows = listSessions(cwd, env);
    if (json)
      writeOut(
        `${JSON.stringify(
          rows.map((r) => ({ id: r.id, path: r.path, modified: r.mtime.toISOString(), firstPrompt: r.firstPrompt, turns: r.turns, size: r.size, ...(r.title ? { title: r.title } : {}) })),
          null,
          2,
        )}\n`,
      );
    else writeOut(formatSessionList(rows));
    return 0;
  }
  if (sub === "show") {
    if (!id) throw new UsageError(`'sessions show' needs a session id. ${USAGE}`);
    const found = findSession(id, cwd, env);
    if (!found.ok) throw new UsageError(found.error);
    const loaded = loadTranscript(found.path);
    for (const w of loaded.warnings) writeErr(`yoke: ${w}\n`);
    if (json) writeOut(`${JSON.stringify({ id: found.id, path: found.path, entries: loaded.entries }, null, 2)}\n`);
    else writeOut(`Session ${found.id} (${found.path})\n\n${formatSessionShow(loaded.entries)}`);
    return 0;
  }
  throw new UsageError(`unknown subcommand '${sub}'. ${USAGE}`);
}
