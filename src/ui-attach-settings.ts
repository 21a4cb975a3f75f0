// The attached terminal's two settings: the detach key (which is also the prefix of the chords that
// switch tasks, ui-attach.ts) and whether the one-line status shows. The detach key is parsed and
// defaulted in one place, settings.ts, whose detachKeySetting() reads FLEETCOM_DETACH_KEY over the
// config file's `detach_key`; here only the flag comes first, and a bad flag is the user's to fix.
// settings.ts (with its TOML parser) is loaded only when the environment or a config file may name
// another key: without either the key is the default, and attach draws sooner (docs/benchmarks.md).
import { existsSync } from "node:fs";
import { usageError } from "./errors.ts";
import { DEFAULT_DETACH_KEY, parseBoolean, parseDetachKey, type DetachKey } from "./config-words.ts";
import { configFile } from "./paths.ts";

export { DEFAULT_DETACH_KEY, type DetachKey };

/** The detach key: `--detach-key`, else FLEETCOM_DETACH_KEY, else the config file, else Ctrl-\. */
export async function chosenDetachKey(flag: string | undefined, env: Record<string, string | undefined> = process.env): Promise<DetachKey> {
  if (flag === undefined)
    return env.FLEETCOM_DETACH_KEY || existsSync(configFile(env)) ? (await import("./settings.ts")).detachKeySetting(env) : DEFAULT_DETACH_KEY;
  const parsed = parseDetachKey(flag);
  if ("error" in parsed) throw usageError(`--detach-key: ${parsed.error}`);
  return parsed.ok;
}

/** Whether attached mode starts with its status line: FLEETCOM_ATTACH_STATUS=1 (or on, true, yes); off by default and for anything else. */
export function attachStatusSetting(env: Record<string, string | undefined> = process.env): boolean {
  return parseBoolean(env.FLEETCOM_ATTACH_STATUS ?? "") ?? false;
}
