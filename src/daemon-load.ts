// Everything a `load` does (sessions.md, recovery.md): which entries a running task already stands
// for, the history a recovered entry brings back, the spawns a turn at a time, and what a snapshot
// keeps of a load under way. The tasks are the fleet's (daemon.ts): a load asks it through `LoadFleet`.
import { setImmediate } from "node:timers";
import { detect } from "./agent.ts";
import { knownAgents, savedCommands, typedForm } from "./agent-run.ts";
import { readHistoryFile } from "./daemon-history.ts";
import { restartOf } from "./daemon-restarts.ts";
import type { Peer } from "./daemon-peers.ts";
import type { Task } from "./daemon-task.ts";
import type { TaskStart } from "./daemon-task-spec.ts";
import { UserError } from "./errors.ts";
import { isDirectory } from "./files.ts";
import { commandTooLong, serviceOf } from "./recipe.ts";
import { readEnvFile } from "./recipe-procfile.ts";
import { logPatternProblem } from "./recipe-services.ts";
import type { RestoredHistory } from "./recipe-history.ts";
import type { IdChange, OpResult, RecipeEntry } from "./wire-protocol.ts";
import { parseMemoryLimit } from "./task-resources.ts";

// ---- turns -----------------------------------------------------------------------------------

// How much a `load` does before it lets the daemon serve its other clients: four spawns, or 512
// entries skipped for a missing directory, or TURN_MS of either, whichever comes first. A spawn's time
// varies widely on a busy machine, so a count alone would let other clients wait long there
// (docs/benchmarks.md, load-320-max-wait); counting time as well keeps each turn near TURN_MS.

export const CHECKS_PER_TURN = 512;
export const CHECKS_PER_SPAWN = CHECKS_PER_TURN / 4;
export const TURN_MS = 10;

export class LoadTurns {
  private work = 0;
  private started: number;

  /** `now` is monotonic, in ms (performance.now; tests pass their own). */
  constructor(private readonly now: () => number = () => performance.now()) {
    this.started = now();
  }

  /** Counts a spawn or a skipped entry; true when the load should yield before the next one. */
  did(what: "spawn" | "skip"): boolean {
    this.work += what === "spawn" ? CHECKS_PER_SPAWN : 1;
    return this.work >= CHECKS_PER_TURN || this.now() - this.started >= TURN_MS;
  }

  /** After the yield: a new turn starts now. */
  yielded(): void {
    this.work = 0;
    this.started = this.now();
  }
}

// ---- already running -------------------------------------------------------------------------

// Which entries of a load are already running (sessions.md, "Loading never duplicates what is
// running"): an entry is skipped when a running task has the same directory, command, group and
// name, or, for an agent, the same conversation. Pure: the daemon hands in its running tasks.
//
// Counted, not just compared: each running task stands for one entry at most, so a recipe that
// starts the same command twice and is loaded again finds both running, while loading it into a
// fleet that runs the command once starts the second one.

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

// ---- the load --------------------------------------------------------------------------------

/** What a load asks of the fleet (daemon.ts), which owns the tasks. */
export interface LoadFleet {
  /** The ids recovered entries bring are kept for them (daemon-task-ids.ts). */
  reserveIds(ids: Iterable<number | undefined>): void;
  prepareAgent(peer: Peer, command: string, cwd: string): Promise<void>;
  /** A load of the lost fleet's snapshot clears the crash notice. */
  recovered(snapshot: string): void;
  /** Writes the recovery snapshot now, not after the debounce. */
  snapshotNow(): void;
  spawn(peer: Peer, start: TaskStart): Task;
  /** An entry with `after` starts when its conditions hold, or never (daemon-order.ts). */
  hold(name: string | null, after: RecipeEntry["after"], start: () => Task): Promise<{ task: Task } | { notStarted: string }>;
  /** The running tasks. */
  running(): Task[];
  /** Whether each task's history is kept on disk (`history` in settings.ts). */
  keepsHistory(): boolean;
  stopping(): boolean;
  log(message: string): void;
}

/** A load's entries to start (those no running task stands for), how many of them it has reached, and those reached that wait on others. */
interface LoadUnderWay {
  entries: RecipeEntry[];
  reached: number;
  held: Set<RecipeEntry>;
}

/** An entry a load has not reached yet, as a snapshot records it: it has no task, so no history key. */
function notYetStarted({ history: _history, ...entry }: RecipeEntry): RecipeEntry {
  return entry;
}

export class Loads {
  /** The entries of each load under way that it has not reached yet: a snapshot holds them (recovery.md). */
  private readonly underWay = new Set<LoadUnderWay>();

  constructor(private readonly fleet: LoadFleet) {}

  /**
   * Starts every entry whose directory exists and that no running task already stands for (unless
   * `again`), a few at a time: spawning is synchronous, so between turns the daemon
   * serves its other clients. The reply comes when all are started. `earlier`: tasks an earlier
   * request of the same load started, which are never taken for entries of this one.
   */
  async load(
    peer: Peer,
    entries: RecipeEntry[],
    options: { again?: boolean | undefined; earlier?: readonly number[] | undefined; snapshot?: string | undefined } = {},
  ): Promise<OpResult<"load">> {
    for (const e of entries) {
      const tooLong = commandTooLong(e.cmd);
      if (tooLong) throw new UserError(tooLong);
      // The client checked it as it read the recipe; a request that did not is refused all the same.
      const pattern = e.ready && "log" in e.ready ? logPatternProblem(e.ready.log) : null;
      if (pattern) throw new UserError(`ready.log: ${pattern}`);
    }
    this.fleet.reserveIds(entries.map((e) => e.id));
    // Every agent binary is asked which flags it takes at once, so the recipe then starts in order.
    const [histories] = await Promise.all([
      this.readHistories(entries),
      Promise.all(entries.filter((e) => isDirectory(e.dir)).map((e) => this.fleet.prepareAgent(peer, e.cmd, e.dir))),
    ]);
    if (options.snapshot !== undefined) this.fleet.recovered(options.snapshot);
    const duplicate = options.again ? entries.map(() => false) : this.duplicates(entries, options.earlier);
    // The whole load is in a snapshot before its first spawn: a crash while it spawns loses none of it.
    const underWay = { entries: entries.filter((_, i) => !duplicate[i]), reached: 0, held: new Set<RecipeEntry>() };
    this.underWay.add(underWay);
    this.fleet.snapshotNow();
    try {
      return await this.startEntries(peer, entries, duplicate, histories, underWay);
    } finally {
      // A clean stop's final pass keeps what the load had not reached, as it keeps the tasks it ends.
      if (!this.fleet.stopping()) this.underWay.delete(underWay);
    }
  }

  /** The load's spawns, a turn at a time (LoadTurns); `underWay.reached` follows them. */
  private async startEntries(
    peer: Peer,
    entries: RecipeEntry[],
    duplicate: boolean[],
    histories: Map<RecipeEntry, RestoredHistory>,
    underWay: LoadUnderWay,
  ): Promise<OpResult<"load">> {
    const started: number[] = [];
    const couldNotStart: { id: number; error: string }[] = [];
    const idsChanged: IdChange[] = [];
    const waits: Promise<void>[] = [];
    const notStarted: string[] = [];
    const spawned = (e: RecipeEntry, task: Task) => {
      if (task.startError === null) started.push(task.id);
      else couldNotStart.push({ id: task.id, error: task.startError });
      if (e.id !== undefined && e.id !== task.id) idsChanged.push({ from: e.id, to: task.id });
    };
    let skipped = 0;
    let running = 0;
    const dirs = new Map<string, boolean>();
    const turns = new LoadTurns();
    for (const [i, e] of entries.entries()) {
      if (this.fleet.stopping()) break;
      if (duplicate[i]) {
        running += 1;
        continue;
      }
      underWay.reached += 1;
      let exists = dirs.get(e.dir);
      if (exists === undefined) dirs.set(e.dir, (exists = isDirectory(e.dir)));
      let due: boolean;
      if (!exists) {
        skipped += 1;
        due = turns.did("skip");
      } else if (e.after !== undefined) {
        // It waits on others in the daemon, which starts it when they are up (daemon-order.ts).
        underWay.held.add(e);
        const held = this.fleet.hold(e.name, e.after, () => this.spawnEntry(peer, e, histories));
        waits.push(
          held.then((outcome) => {
            underWay.held.delete(e);
            if ("task" in outcome) spawned(e, outcome.task);
            else notStarted.push(outcome.notStarted);
          }),
        );
        due = turns.did("skip");
      } else {
        spawned(e, this.spawnEntry(peer, e, histories));
        due = turns.did("spawn");
      }
      if (due) {
        await new Promise((resolve) => setImmediate(resolve));
        turns.yielded();
      }
    }
    await Promise.all(waits);
    return { started, couldNotStart, skipped, alreadyRunning: running, idsChanged, ...(notStarted.length > 0 && { notStarted }) };
  }

  /** An imported entry's variables: its `.env` (read at each load, so an edit counts), then its own `env` over it. */
  private environmentOf(e: RecipeEntry): Record<string, string> | undefined {
    if (e.env_file === undefined && e.env === undefined) return undefined;
    return { ...(e.env_file === undefined ? {} : readEnvFile(e.env_file, (m) => this.fleet.log(m))), ...e.env };
  }

  private spawnEntry(peer: Peer, e: RecipeEntry, histories: Map<RecipeEntry, RestoredHistory>): Task {
    const start = {
      command: e.cmd,
      cwd: e.dir,
      group: e.group,
      name: e.name,
      recorded: e.id,
      typed: e.typed ?? typedForm(e.cmd),
      worktree: e.worktree ?? null,
      baseline: e.baseline,
      checkpoints: e.checkpoints,
      service: serviceOf(e),
      givenEnv: this.environmentOf(e),
      restart: restartOf(e.restart, e.max_restarts, e.restarts),
      maxMemory: e.max_memory === undefined ? null : parseMemoryLimit(e.max_memory),
      loaded: true,
      notify: e.notify !== false,
    };
    const task = this.fleet.spawn(peer, start);
    const history = histories.get(e);
    if (history) task.restore(history);
    if (e.history !== undefined) task.diskLog?.adopt(e.history, history?.writtenAt ?? null);
    return task;
  }

  /** For each entry, whether a running task already stands for it; tasks an earlier request of the same load started do not. */
  duplicates(entries: readonly RecipeEntry[], earlier: readonly number[] = []): boolean[] {
    return alreadyRunning(entries, this.runningForLoad(new Set(earlier)));
  }

  /** The running tasks as a load compares them with its entries: as typed and as a save would store them. */
  private runningForLoad(earlier: ReadonlySet<number>): RunningTask[] {
    const tasks = this.fleet.running().filter((t) => !earlier.has(t.id));
    const saved = savedCommands(tasks);
    return tasks.map((t, i) => ({
      dir: t.cwd,
      group: t.group,
      name: t.name,
      commands: [t.command, saved[i]!],
      conversation: t.agent ? (t.agent.known() ?? t.agent.storedMatch()) : null,
    }));
  }

  /**
   * The history files a recovered fleet's entries name (recipe-history.ts), read before any task
   * starts; one that is missing or damaged is logged and its task starts without. None while history is off.
   */
  private async readHistories(entries: RecipeEntry[]): Promise<Map<RecipeEntry, RestoredHistory>> {
    const found = new Map<RecipeEntry, RestoredHistory>();
    if (!this.fleet.keepsHistory()) return found;
    await Promise.all(
      entries.map(async (e) => {
        if (e.history === undefined) return;
        const read = await readHistoryFile(e.history);
        if ("history" in read) found.set(e, read.history);
        else if (read.problem !== "missing") this.fleet.log(`history not restored from ${e.history}: ${read.problem}`);
      }),
    );
    return found;
  }

  /** The entries the loads under way have not reached yet, as a snapshot records them. */
  notReached(): RecipeEntry[] {
    return [...this.underWay].flatMap((load) => [...load.held, ...load.entries.slice(load.reached)].map(notYetStarted));
  }
}
