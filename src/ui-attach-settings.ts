// The attached terminal's two settings: the detach key (which is also the prefix of the chords that
// switch tasks, ui-attach.ts) and whether the one-line status shows. The detach key is parsed and
// defaulted in one place, settings.ts, whose detachKeySetting() reads FLEETCOM_DETACH_KEY over the
// config file's `detach_key`; here only the flag comes first, and a bad flag is the user's to fix.
import { usageError } from "./errors.ts";
import { DEFAULT_DETACH_KEY, detachKeySetting, parseBoolean, parseDetachKey, type DetachKey } from "./settings.ts";

export { DEFAULT_DETACH_KEY, type DetachKey };

/** The detach key: `--detach-key`, else FLEETCOM_DETACH_KEY, else the config file, else Ctrl-\. */
export function chosenDetachKey(flag: string | undefined, env: Record<string, string | undefined> = process.env): DetachKey {
  if (flag === undefined) return detachKeySetting(env);
  const parsed = parseDetachKey(flag);
  if ("error" in parsed) throw usageError(`--detach-key: ${parsed.error}`);
  return parsed.ok;
}

/** Whether attached mode starts with its status line: FLEETCOM_ATTACH_STATUS=1 (or on, true, yes); off by default and for anything else. */
export function attachStatusSetting(env: Record<string, string | undefined> = process.env): boolean {
  return parseBoolean(env.FLEETCOM_ATTACH_STATUS ?? "") ?? false;
}
