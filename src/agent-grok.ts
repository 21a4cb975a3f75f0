// Grok: a new conversation is pinned with `--session-id`; there is no capture channel. Exit hint:
// `grok --resume <id>` or `grok -r <id>`. Store: `<grok home>/sessions/<encoded cwd>/<id>/`.
import { type Env, homeDir } from "./paths.ts";
import { join } from "node:path";
import { createdMs, entriesOf } from "./agent-files.ts";
import { isDirectory } from "./files.ts";
import { type Agent, lastHintId, nearSpawn, SESSION_ID_PIN, single } from "./agent.ts";

const HINT = /(?:^|\s)grok\s+(?:--resume|-r)\s+(.*)$/;

export function grokHome(env: Env): string {
  return env.GROK_HOME || join(homeDir(env), ".grok");
}

/** The cwd as Grok names its session folder: `%` → `%25`, then `/` → `%2F`. */
export function grokCwdFolder(cwd: string): string {
  return cwd.replaceAll("%", "%25").replaceAll("/", "%2F");
}

export const grok: Agent = {
  name: "grok",
  words: ["grok"],
  selector: "--resume",
  envKeys: ["HOME", "GROK_HOME"],

  ...SESSION_ID_PIN,

  captured: () => null,

  exitHint(lines) {
    const hints = lines.map((l) => HINT.exec(l.trim())?.[1]?.trim()).filter((id): id is string => id !== undefined);
    return lastHintId(hints);
  },

  holds: (id, { cwd, env }) => isDirectory(join(grokHome(env), "sessions", grokCwdFolder(cwd), id)),

  fromStore({ cwd, spawnedAt, env, taken }) {
    const dir = join(grokHome(env), "sessions", grokCwdFolder(cwd));
    const ids = entriesOf(dir)
      .filter((e) => e.isDirectory() && nearSpawn(createdMs(join(dir, e.name)) ?? Number.NaN, spawnedAt))
      .map((e) => e.name);
    return single(ids, taken);
  },
};
