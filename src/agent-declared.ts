// An agent the user declares in config.toml (config-agents.ts checks the table): started with a
// chosen ID when it has a `pin`, resumed with `<program> <selector> '<id>'`, and resumable when its
// `store` path for that ID exists and is not empty. It has no capture channel and no exit hint: the
// pin, the ID of a resume form typed, or the one store entry made within 30 s of the spawn name its
// conversation. Its IDs pass its own check (`idCheck`), never wider than a plain word.
import { type Env, homeDir } from "./paths.ts";
import { join } from "node:path";
import { statSync } from "node:fs";
import { createdMs, entriesOf } from "./agent-files.ts";
import { type AgentsTable, checkedAgents, type DeclaredAgentSpec, idCheck } from "./config-agents.ts";
import { declareAgents } from "./agent-run.ts";
import { type Agent, type IdCheck, nearSpawn, newUuid, shellQuote, single } from "./agent.ts";

const ID = "{id}";

/** The store path of one conversation: `~/` is the launching client's HOME. */
export function storePath(store: string, env: Env, id: string): string {
  const path = store.startsWith("~/") ? join(homeDir(env), store.slice(2)) : store;
  return path.replace(ID, id);
}

/** A file with bytes in it, or a directory with an entry: an empty one is a conversation not written yet. */
function nonEmpty(path: string): boolean {
  try {
    const stat = statSync(path);
    if (stat.isFile()) return stat.size > 0;
    return stat.isDirectory() && entriesOf(path).length > 0;
  } catch {
    return false;
  }
}

/**
 * The IDs of the store's entries: the path component holding `{id}` read as a pattern over the
 * entries of its parent directory, and the rest of the path under each.
 */
function storedIds(spec: DeclaredAgentSpec, env: Env, isId: IdCheck): { id: string; path: string }[] {
  const template = storePath(spec.store, env, ID);
  const at = template.indexOf(ID);
  const dirEnd = template.lastIndexOf("/", at);
  const componentEnd = template.indexOf("/", at);
  const dir = template.slice(0, dirEnd) || "/";
  const component = template.slice(dirEnd + 1, componentEnd === -1 ? undefined : componentEnd);
  const rest = componentEnd === -1 ? "" : template.slice(componentEnd);
  const [prefix, suffix] = component.split(ID) as [string, string];
  return entriesOf(dir).flatMap((entry) => {
    const { name } = entry;
    if (!name.startsWith(prefix) || !name.endsWith(suffix) || name.length <= prefix.length + suffix.length) return [];
    const id = name.slice(prefix.length, name.length - suffix.length);
    return isId(id) ? [{ id, path: join(dir, name) + rest }] : [];
  });
}

/** Where a declared agent with `usage` keeps a conversation's tokens: its store file, read in that shape. */
function usageFileOf({ store, usage }: DeclaredAgentSpec): Pick<Agent, "usageFile"> {
  return usage === null ? {} : { usageFile: (id, { env }) => ({ path: storePath(store, env, id), shape: usage }) };
}

export function declaredAgent(spec: DeclaredAgentSpec): Agent {
  const isId = idCheck(spec.id);
  const pinFlags = (spec.pin ?? []).filter((word) => word.startsWith("-"));
  return {
    name: spec.name,
    words: [spec.match],
    selector: spec.selector,
    envKeys: ["HOME"],
    isId,

    launchFlags: (launch) => (launch.id === null ? pinFlags : []),

    instrument(launch) {
      if (launch.id !== null || spec.pin === null) return { args: [], env: {}, pinned: launch.id };
      const pinned = newUuid();
      return { args: spec.pin.map((word) => shellQuote(word.replaceAll(ID, pinned))), env: {}, pinned };
    },

    captured: () => null,
    exitHint: () => null,

    holds: (id, { env }) => isId(id) && nonEmpty(storePath(spec.store, env, id)),

    ...usageFileOf(spec),

    fromStore({ spawnedAt, env, taken }) {
      const made = storedIds(spec, env, isId).filter(({ path }) => nonEmpty(path) && nearSpawn(createdMs(path) ?? Number.NaN, spawnedAt));
      return single(
        made.map(({ id }) => id),
        taken,
        isId,
      );
    },
  };
}

/**
 * The agents of the config file's `[agents.NAME]` tables from now on (at the daemon's start and at
 * each reload); one line per entry left out: a bad one, or one whose executable a built-in agent
 * already answers to.
 */
export function useDeclaredAgents(table: AgentsTable | null): string[] {
  const { agents, problems } = checkedAgents(table);
  const shadowed = declareAgents(agents.map(declaredAgent));
  return [...problems, ...shadowed.map((a) => `agents.${a.name}: match: "${a.words[0]}" is a built-in agent's; agent ignored`)];
}
