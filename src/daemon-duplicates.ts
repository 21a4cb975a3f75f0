// Which entries of a load are already running (sessions.md, "Loading never duplicates what is
// running"): an entry is skipped when a running task has the same directory, command, group and
// name, or, for an agent, the same conversation. Pure: the daemon hands in its running tasks.
//
// Counted, not just compared: each running task stands for one entry at most, so a recipe that
// starts the same command twice and is loaded again finds both running, while loading it into a
// fleet that runs the command once starts the second one.
import { detect } from "./agent.ts";
import { knownAgents } from "./agent-run.ts";
import type { RecipeEntry } from "./recipe.ts";

export interface RunningTask {
  dir: string;
  group: string | null;
  name: string | null;
  /** The command as typed, and the form a save would store (an agent's resume form); often the same. */
  commands: readonly string[];
  /** The agent conversation the task is in, when known. */
  conversation: string | null;
}

const key = (dir: string, cmd: string, group: string | null, name: string | null) => JSON.stringify([dir, cmd, group, name]);

/** For each entry, in order: whether a running task already stands for it. */
export function alreadyRunning(entries: readonly RecipeEntry[], running: readonly RunningTask[]): boolean[] {
  const free = new Set(running.keys());
  const byKey = new Map<string, number[]>();
  const byConversation = new Map<string, number[]>();
  const index = (map: Map<string, number[]>, k: string, i: number) => {
    const list = map.get(k) ?? [];
    if (!list.includes(i)) list.push(i);
    map.set(k, list);
  };
  running.forEach((task, i) => {
    for (const cmd of task.commands) index(byKey, key(task.dir, cmd, task.group, task.name), i);
    if (task.conversation !== null) index(byConversation, task.conversation, i);
  });
  const take = (candidates: number[] | undefined): boolean => {
    const found = candidates?.find((i) => free.has(i));
    if (found === undefined) return false;
    free.delete(found);
    return true;
  };
  return entries.map((entry) => {
    // The same conversation twice is two programs writing one transcript, wherever they run.
    const conversation = detect(entry.cmd, knownAgents())?.id ?? null;
    if (conversation !== null && take(byConversation.get(conversation))) return true;
    return take(byKey.get(key(entry.dir, entry.cmd, entry.group, entry.name)));
  });
}
