// `fleetcom usage` on the daemon's side (docs/usage.md): every conversation this machine's fleetcom
// knows, each once. The fleet's agent tasks first; then the conversations that saved sessions and
// recovery snapshots resume (their stored resume form: agent, ID, directory) and no task runs, each
// read from its agent's own store as a task's is (agent-usage.ts). A conversation a task runs is
// that task's, however many files also name it.
//
// A saved conversation's store is kept from one ask to the next, so it is read incrementally; it
// is read to its end in bounded parts, the event loop given back between them.
import { setImmediate } from "node:timers";
import { resumedBy } from "./agent-run.ts";
import { type UsageStore, usageStoreFor } from "./agent-usage.ts";
import type { Agent } from "./agent.ts";
import type { Task } from "./daemon-task.ts";
import { homeDir, type Env, sessionDir } from "./paths.ts";
import type { RecipeEntry } from "./recipe.ts";
import { listSessions, readRecipe } from "./recipe-sessions.ts";
import { listSnapshots } from "./recipe-snapshots.ts";
import type { ConversationUsage } from "./wire-protocol.ts";

/** Parts of one store read in one ask, at most (each agent-usage.ts READ_MAX): a longer backlog is read on at the next. */
const PARTS_MAX = 16;

/** A conversation a saved session or recovery snapshot resumes. */
interface SavedConversation {
  agent: Agent;
  id: string;
  dir: string;
  group: string | null;
}

export class ConversationUsages {
  /** Each saved conversation's store, by agent, ID and directory; only those still saved are kept. */
  private readonly stores = new Map<string, UsageStore | null>();

  constructor(private readonly env: Env = process.env) {}

  /** The fleet's agent tasks, then the saved conversations no task runs whose store records tokens. */
  async list(tasks: readonly Task[]): Promise<ConversationUsage[]> {
    const live = tasks.flatMap((task) => (task.agent === null ? [] : [liveUsage(task)]));
    const running = new Set(live.flatMap((row) => (row.conversation === null ? [] : [conversationKey(row.agent, row.conversation)])));
    const saved = savedConversations(this.env).filter((c) => !running.has(conversationKey(c.agent.name, c.id)));
    const rows: ConversationUsage[] = [];
    const kept = new Set<string>();
    for (const conversation of saved) {
      const key = `${conversationKey(conversation.agent.name, conversation.id)}\0${conversation.dir}`;
      kept.add(key);
      const store = this.storeOf(key, conversation);
      if (store === null) continue;
      await readToEnd(store);
      const usage = store.usage();
      if (usage === null) continue;
      rows.push({
        agent: conversation.agent.name,
        conversation: conversation.id,
        group: conversation.group,
        usage,
        at: isoOrNull(store.writtenAt()),
        task: null,
      });
    }
    for (const key of this.stores.keys()) if (!kept.has(key)) this.stores.delete(key);
    return [...live, ...rows];
  }

  private storeOf(key: string, { agent, id, dir }: SavedConversation): UsageStore | null {
    if (!this.stores.has(key)) this.stores.set(key, usageStoreFor(agent, id, { cwd: dir, env: agentEnv(agent, this.env) }));
    return this.stores.get(key) ?? null;
  }
}

/** A task's conversation and tokens as its run reads them, timed by its store, else by when the task was last heard from. */
function liveUsage(task: Task): ConversationUsage {
  const run = task.agent!;
  const usage = run.usage();
  const source = run.usageSource();
  const heard = Math.max(task.lastOutputAt ?? 0, task.endedAt?.getTime() ?? 0, task.startedAt.getTime());
  return { agent: run.agent, conversation: source?.id ?? null, group: task.group, usage, at: isoOrNull(source?.writtenAt ?? heard), task: task.id };
}

/** Every conversation the saved sessions and recovery snapshots resume, each once: the newest snapshot's word first. */
export function savedConversations(env: Env): SavedConversation[] {
  const files = [
    ...listSnapshots(env, sessionDir(env))
      .filter((s) => s.damaged === null)
      .map((s) => s.file),
    ...listSessions(env, sessionDir(env))
      .filter((s) => s.damaged === null)
      .map((s) => s.file),
  ];
  const found = new Map<string, SavedConversation>();
  for (const file of files) {
    for (const entry of entriesOf(file, env)) {
      const resumed = resumedBy(entry.cmd);
      const key = resumed && conversationKey(resumed.agent.name, resumed.id);
      if (resumed && key && !found.has(key)) found.set(key, { ...resumed, dir: entry.dir, group: entry.group });
    }
  }
  return [...found.values()];
}

/** A recipe's entries on this machine, those a recovery would start and those it keeps as finished; none when it cannot be read now. */
function entriesOf(file: string, env: Env): RecipeEntry[] {
  try {
    const recipe = readRecipe(file, { home: homeDir(env), cwd: sessionDir(env) });
    return [...recipe.entries.filter((e) => !e.host), ...(recipe.finished ?? [])];
  } catch {
    return []; // removed or damaged since it was listed
  }
}

/** Reads the store on to its end, in bounded parts with the event loop given back between them. */
async function readToEnd(store: UsageStore): Promise<void> {
  for (let part = 0; part < PARTS_MAX && store.refresh(); part++) await new Promise((resolve) => setImmediate(resolve));
}

/** The agent's own variables of the daemon's environment, as a run keeps those of its client's (agent-run.ts). */
function agentEnv(agent: Agent, env: Env): Env {
  return Object.fromEntries(agent.envKeys.filter((k) => env[k] !== undefined).map((k) => [k, env[k]]));
}

function conversationKey(agent: string, id: string): string {
  return `${agent}\0${id}`;
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
