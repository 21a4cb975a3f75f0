// The attached terminal's two settings: the detach key (which is also the prefix of the chords that
// switch tasks, ui-attach.ts) and whether the one-line status shows. Each is read through one small
// function, flag first, then the environment (FLEETCOM_DETACH_KEY, FLEETCOM_ATTACH_STATUS); the
// config file's `detach_key` and status setting go in those functions, nowhere else.
import { usageError } from "./errors.ts";
import { printable } from "./text-printable.ts";

export interface DetachKey {
  /** The byte the terminal sends for it. */
  byte: number;
  /** How the user reads it: `Ctrl-\`, `Ctrl-A`. */
  name: string;
}

export const DEFAULT_DETACH_KEY: DetachKey = { byte: 0x1c, name: "Ctrl-\\" };

// Control keys that are something else in every terminal (Tab, Enter, Backspace, Esc, which starts
// every escape sequence): as a detach key each would take a key the task needs, or detach on an arrow.
const REFUSED: Record<number, string> = { 0x08: "Backspace", 0x09: "Tab", 0x0a: "Enter", 0x0d: "Enter", 0x1b: "Esc" };

/**
 * A control key as the user writes it: `ctrl-\`, `Ctrl-A`, `C-a`, `^A`, `^]`. Only control keys:
 * a printable key would be taken from everything typed into the task.
 */
export function parseDetachKey(text: string, from = "--detach-key"): DetachKey {
  const match = /^(?:ctrl-|c-|\^)(.)$/i.exec(text.trim());
  const bad = (why: string) => usageError(`${from}: ${why} (e.g. ctrl-\\, ctrl-a, ^]); got '${printable(text)}'`);
  if (!match) throw bad("expected a control key");
  const char = match[1]!.toUpperCase();
  const code = char.charCodeAt(0);
  if (code < 0x40 || code > 0x5f) throw bad("expected a control key: Ctrl with a letter or one of @ [ \\ ] ^ _");
  const byte = code - 0x40;
  if (REFUSED[byte]) throw bad(`Ctrl-${char} is the ${REFUSED[byte]} key`);
  return { byte, name: `Ctrl-${char}` };
}

/** The detach key: `--detach-key`, else FLEETCOM_DETACH_KEY, else Ctrl-\. A bad value is a usage error. */
export function chosenDetachKey(flag: string | undefined, env: Record<string, string | undefined> = process.env): DetachKey {
  if (flag !== undefined) return parseDetachKey(flag);
  const fromEnv = env.FLEETCOM_DETACH_KEY;
  if (fromEnv !== undefined && fromEnv !== "") return parseDetachKey(fromEnv, "FLEETCOM_DETACH_KEY");
  return DEFAULT_DETACH_KEY;
}

/** Whether attached mode starts with its status line: FLEETCOM_ATTACH_STATUS=1 (or on, true, yes); off by default. */
export function attachStatusSetting(env: Record<string, string | undefined> = process.env): boolean {
  return /^(1|on|true|yes)$/i.test(env.FLEETCOM_ATTACH_STATUS?.trim() ?? "");
}
