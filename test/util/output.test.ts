/**
 * Issue 20.1, the class: every byte yoke prints goes through src/util/output.ts, whose writes the exit path
 * waits for. A direct process.stdout.write / console.log elsewhere would be cut when yoke exits into a slow pipe.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../helpers/binary.ts";

// Direct writes, and the std streams handed on as something to write to (anything but reading .isTTY).
const DIRECT = /process\.(stdout|stderr)(?!\.isTTY\b)|console\.(log|error|warn|info|debug)\(|Bun\.std(out|err)\b/;
// gen-schemas.ts and gen-input-schemas.ts are build-time scripts run by bun, never part of the binary's output path.
const ALLOWED = new Set(["src/util/output.ts", "src/hook/gen-schemas.ts", "src/tool/gen-input-schemas.ts", "src/config/gen-check-schemas.ts"]);
// --version's one line in the entry, written before output.ts could load and awaited before the exit: whole in a pipe
// (test/e2e/version-exit.test.ts pins it). Only this exact line; anything else in entry.ts is an offender.
const ALLOWED_LINES = new Set(["src/entry.ts: await Bun.write(Bun.stdout, `${typeof YOKE_VERSION === \"string\" ? YOKE_VERSION : \"0.1.0-dev\"} (yoke)\\n`);"]);

test("nothing in src/ or plugins/ writes to stdout or stderr except through util/output.ts", () => {
  const root = repoRoot();
  const offenders: string[] = [];
  for (const top of ["src", "plugins"]) {
    for (const rel of readdirSync(join(root, top), { recursive: true }) as string[]) {
      const file = `${top}/${rel}`;
      if (!file.endsWith(".ts") || ALLOWED.has(file)) continue;
      readFileSync(join(root, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (DIRECT.test(line) && !line.trim().startsWith("//") && !line.trim().startsWith("*") && !ALLOWED_LINES.has(`${file}: ${line.trim()}`)) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
  }
  expect(offenders).toEqual([]);
});

// Issue 11 point 7: a diagnostic (`yoke: …` warning, note, error) goes through util/diagnostics.ts (consola), so
// --verbose/--debug levels and the --debug log file see it; only these write such a line directly, each for a reason.
const RAW_DIAGNOSTIC = /writeErr\(`yoke: /;
const RAW_ALLOWED: Record<string, string> = {
  "src/main.ts": "the last-resort internal error, when nothing else may be working",
};

test("no `yoke: …` diagnostic line is written past the diagnostics channel", () => {
  const root = repoRoot();
  const offenders: string[] = [];
  for (const top of ["src", "plugins"]) {
    for (const rel of readdirSync(join(root, top), { recursive: true }) as string[]) {
      const file = `${top}/${rel}`;
      if (!file.endsWith(".ts") || file.startsWith("src/util/") || RAW_ALLOWED[file]) continue;
      readFileSync(join(root, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (RAW_DIAGNOSTIC.test(line)) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
  }
  expect(offenders).toEqual([]);
});
