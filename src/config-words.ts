// The settings' words that need no config file to read: a yes/no, and a detach key as written.
// Apart from settings.ts so that attach (ui-attach-settings.ts) can parse its flag and its default
// without evaluating settings.ts and its TOML parser, which it needs only when a config file or
// FLEETCOM_DETACH_KEY may name another key.

/** A key to leave attached mode: the byte the terminal sends for it, and its name as written. */
export interface DetachKey {
  name: string;
  byte: number;
}

export const DEFAULT_DETACH_KEY: DetachKey = { name: "Ctrl-\\", byte: 0x1c };

/** The one reading of a yes/no setting, in the environment or the config file: on/off, true/false, yes/no, 1/0, in any case, spaces around ignored. */
export function parseBoolean(raw: string): boolean | undefined {
  const word = raw.trim().toLowerCase();
  if (["on", "true", "yes", "1"].includes(word)) return true;
  if (["off", "false", "no", "0"].includes(word)) return false;
  return undefined;
}

// Keys every program needs: a detach key must not take one of them from the task.
const RESERVED_CTRL = new Map([
  ["c", "Ctrl-C interrupts"],
  ["d", "Ctrl-D ends input"],
  ["z", "Ctrl-Z suspends"],
  ["m", "Ctrl-M is Enter"],
  ["j", "Ctrl-J is a newline"],
  ["i", "Ctrl-I is Tab"],
  ["h", "Ctrl-H is Backspace"],
  ["[", "Ctrl-[ is Escape"],
]);

/** `ctrl-\`, `ctrl-]`, `ctrl-b`, `C-b`, `^B`: a control key that no program needs for itself. */
export function parseDetachKey(raw: string): { ok: DetachKey } | { error: string } {
  const text = raw.trim();
  const match = /^(?:ctrl[-+]|c-|\^)(.)$/i.exec(text);
  const char = match?.[1]?.toLowerCase();
  if (char === undefined || !/^[a-z@\\\]^_[]$/.test(char)) {
    return { error: `'${raw}' is not a control key (write it as ctrl-\\, ctrl-], ctrl-^, ctrl-_ or ctrl-<letter>)` };
  }
  const reserved = RESERVED_CTRL.get(char);
  if (reserved) return { error: `'${raw}' would take a key programs need (${reserved})` };
  return { ok: { name: `Ctrl-${char.toUpperCase()}`, byte: char.toUpperCase().charCodeAt(0) & 0x1f } };
}
