// A Procfile (foreman, honcho, overmind) as a recipe (docs/services.md): each `name: command` line a
// task called name, in the file's directory, with the `.env` beside it in its environment. Comments
// and blank lines are skipped; a malformed line fails the whole file, naming the line. Pure, but for
// the `.env` read (a regular file, bounded), which the daemon does at each start so an edit counts.
import { dirname, join } from "node:path";
import { EXIT, UserError } from "./errors.ts";
import { isFile, readRegularFile } from "./files.ts";
import { printable } from "./text-printable.ts";

/** Both tools' rule for a process name: letters, digits, `_` and `-`. */
const PROCFILE_LINE = /^([A-Za-z0-9_-]+):[ \t]*(.*?)[ \t]*$/;
/** The most a `.env` may hold. */
const MAX_ENV_BYTES = 1024 * 1024;

export interface ProcfileProcess {
  name: string;
  command: string;
}

export function isProcfileName(base: string): boolean {
  return base === "Procfile" || base.startsWith("Procfile.");
}

export function parseProcfile(text: string, file: string): ProcfileProcess[] {
  const processes: ProcfileProcess[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = PROCFILE_LINE.exec(line);
    if (!match || match[2] === "") {
      throw new UserError(`${printable(file)}:${i + 1}: expected "name: command", got ${printable(JSON.stringify(cut(line)))}`, EXIT.usage);
    }
    if (processes.some((p) => p.name === match[1])) throw new UserError(`${printable(file)}:${i + 1}: a second process named ${match[1]}`, EXIT.usage);
    processes.push({ name: match[1]!, command: match[2]! });
  }
  return processes;
}

/** The `.env` beside a Procfile, when there is one. */
export function envFileBeside(file: string): string | null {
  const env = join(dirname(file), ".env");
  return isFile(env) ? env : null;
}

const ENV_LINE = /^(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*(.*)$/;

/**
 * `KEY=VALUE` lines as foreman and honcho read them: `export ` allowed, `#` comments, single quotes
 * literal, double quotes with `\n` and `\"` escapes, an unquoted value cut at ` #`. Other lines are skipped.
 */
export function parseDotenv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const match = ENV_LINE.exec(raw.trim());
    if (!match) continue;
    env[match[1]!] = dotenvValue(match[2]!);
  }
  return env;
}

function dotenvValue(value: string): string {
  const quoted = /^(['"])(.*)\1(?:[ \t]+#.*)?$/.exec(value);
  if (quoted?.[1] === "'") return quoted[2]!;
  if (quoted) return quoted[2]!.replace(/\\([n"\\])/g, (_, c: string) => (c === "n" ? "\n" : c));
  return value.replace(/[ \t]+#.*$/, "");
}

/** A `.env`'s variables, or {} when it is gone or is no regular file (said through `log`). */
export function readEnvFile(file: string, log: (message: string) => void): Record<string, string> {
  try {
    return parseDotenv(readRegularFile(file, { maxBytes: MAX_ENV_BYTES }).toString("utf8"));
  } catch (error) {
    log(`${file} not read: ${(error as Error).message}`);
    return {};
  }
}

function cut(line: string): string {
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
