import { findSession, formatSessionList, formatSessionShow, listSessions, loadTranscript } from "../../session/index.ts";
import { defineCommand } from "citty";
import { UsageError } from "../args.ts";
import { writeOut } from "../../util/output.ts";
import { createDiagnostics } from "../../util/diagnostics.ts";
import { exportResults, formatExportCsv, formatExportTable } from "../../session/export.ts";

type Env = Record<string, string | undefined>;

/**
 * `yoke sessions list|show` (issue 7, contracts §5.3): the sessions of the current project, newest
 * first, or one session's transcript. Throws UsageError for an unknown id.
 */
function listCommand(json: boolean, cwd = process.cwd(), env: Env = process.env): number {
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

function showCommand(id: string | undefined, json: boolean, cwd = process.cwd(), env: Env = process.env): number {
  if (!id) throw new UsageError("'sessions show' needs a session id (see yoke sessions list).");
  const found = findSession(id, cwd, env);
  if (!found.ok) throw new UsageError(found.error);
  const loaded = loadTranscript(found.path);
  const log = createDiagnostics();
  for (const w of loaded.warnings) log.warn(w);
  if (json) writeOut(`${JSON.stringify({ id: found.id, path: found.path, entries: loaded.entries }, null, 2)}\n`);
  else writeOut(`Session ${found.id} (${found.path})\n\n${formatSessionShow(loaded.entries)}`);
  return 0;
}

function exportCommand(paths: string[], format: "table" | "json" | "csv"): number {
  if (paths.length === 0) throw new UsageError("'sessions export' needs the result files or folders to read (e.g. the results folder of a fleet)");
  let x;
  try {
    x = exportResults(paths);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const log = createDiagnostics();
  for (const p of x.problems) log.warn(p);
  writeOut(format === "json" ? `${JSON.stringify({ tasks: x.rows, summary: x.summary }, null, 2)}\n` : format === "csv" ? formatExportCsv(x) : formatExportTable(x));
  return x.rows.length === 0 ? 1 : 0;
}

const json = { type: "boolean", description: "Print JSON" } as const;

/** Extra positionals are a usage error, not silently dropped. */
const noExtra = (rest: string[], max: number) => {
  if (rest.length > max) throw new UsageError(`unexpected argument '${rest[max]}'`);
};

export const command = defineCommand({
  meta: { name: "sessions", description: "Saved sessions of this folder (list is the default)" },
  args: { json },
  subCommands: {
    list: defineCommand({
      meta: { name: "list", description: "Sessions of this folder, newest first" },
      args: { json },
      run: ({ args }) => (noExtra(args._, 0), listCommand(!!args.json)),
    }),
    export: defineCommand({
      meta: { name: "export", description: "One table of many runs from their --output-format json results (files or folders)" },
      args: {
        paths: { type: "positional", required: false, description: "Result files or folders (searched for *.json)" },
        json,
        csv: { type: "boolean", description: "Print CSV" },
      },
      run: ({ args }) => exportCommand(args._, args.json ? "json" : args.csv ? "csv" : "table"),
    }),
    show: defineCommand({
      meta: { name: "show", description: "One session's transcript" },
      args: { id: { type: "positional", required: false, description: "Session id or a unique prefix of it" }, json },
      run: ({ args }) => (noExtra(args._, 1), showCommand(args.id, !!args.json)),
    }),
  },
  run: ({ args }) => (noExtra(args._, 0), listCommand(!!args.json)),
});
