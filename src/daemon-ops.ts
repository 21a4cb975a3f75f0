// What each operation of the contract (wire-protocol.ts) does, one small function per op, typed by
// the op: a handler that answers the wrong shape does not compile. The fleet's state and its rules
// live in daemon.ts; a client's streams in daemon-peers.ts. A handler that throws a UserError
// answers the client with its message.
import { Buffer } from "node:buffer";
import { setImmediate } from "node:timers";
import type { Loads } from "./daemon-load.ts";
import { restartOf, type Restarts } from "./daemon-restarts.ts";
import { attach, detach, follow, followLines, followLog, sendScreen, type Peer } from "./daemon-peers.ts";
import type { Task } from "./daemon-task.ts";
import type { TaskStart } from "./daemon-task-spec.ts";
import type { Typist } from "./daemon-typist.ts";
import type { TaskCheckpoints } from "./daemon-checkpoints.ts";
import { UserError } from "./errors.ts";
import { isDirectory } from "./files.ts";
import { commandTooLong } from "./recipe.ts";
import { logPatternProblem } from "./recipe-services.ts";
import { stopInOrder } from "./daemon-order.ts";
import { labelTooLong, normalizeGroup, normalizeName } from "./task-labels.ts";
import type { DaemonStatus, Escapee, Op, OpArgs, OpResult, RecipeEntry, SnapshotError, TaskInfo, TaskRef } from "./wire-protocol.ts";
import { MAX_SEND_BYTES, sendTooLong } from "./term-keys.ts";
import { mebibytes } from "./text-size.ts";
import type { ResourceSampler } from "./daemon-resources.ts";
import { ConversationUsages } from "./daemon-usage.ts";

/** Input a task may have waiting unread: `send` past it is refused, attached keystrokes wait. */
export const MAX_PENDING_INPUT = MAX_SEND_BYTES;

/**
 * How long `kill` waits, after the process group is gone, for the task's end to be recorded (the
 * last output parsed): long enough for a loaded machine, short enough that a run which never
 * reports its end cannot hold the request.
 */
const EXIT_REPORTED_WITHIN_MS = 5_000;

export type Handlers = { [O in Op]: (peer: Peer, args: OpArgs<O>) => OpResult<O> | Promise<OpResult<O>> };

/**
 * What the handlers ask of the fleet. `Daemon` (daemon.ts) implements it; the ops name only this
 * shape, so the daemon can import its handlers without the two files importing each other.
 */
export interface Fleet {
  readonly options: { readonly scrollback: number };
  readonly typist: Typist;
  readonly resources: Pick<ResourceSampler, "fresh" | "watch" | "unwatch" | "keepSampling">;
  readonly checkpoints: Pick<TaskCheckpoints<Task>, "prompt" | "list">;
  list(): TaskInfo[];
  status(): DaemonStatus;
  recipe(): RecipeEntry[];
  snapshotError(): SnapshotError | null;
  stop(): Promise<void>;
  find(ref: TaskRef): Task;
  all(): Task[];
  holds(task: Task): boolean;
  escaped(tasks: readonly Task[]): Escapee[];
  prepareAgent(peer: Peer, command: string, cwd: string): Promise<void>;
  spawn(peer: Peer, start: TaskStart): Task;
  readonly loads: Pick<Loads, "load" | "duplicates">;
  readonly restarts: Pick<Restarts, "stoppedByUser" | "cancel" | "freshStart">;
  reloadSettings(): OpResult<"reload">;
  notifyTest(): Promise<OpResult<"notifyTest">>;
  remove(task: Task): void;
  taskChanged(task: Task, recipeChanged: boolean): void;
}

export function operations(fleet: Fleet): Handlers {
  const conversations = new ConversationUsages();
  return {
    ls: async (_, a) => {
      if (a.resources) await fleet.resources.fresh();
      return fleet.list();
    },
    status: () => fleet.status(),
    subscribe: (peer, a) => {
      const subscribed = () => {
        peer.subscribed = true;
        // A failure that began before this client subscribed is still news to it: right after the reply.
        const error = fleet.snapshotError();
        if (error) setImmediate(() => peer.conn.sendEvent({ type: "snapshot", error }));
        return fleet.list();
      };
      // What the latest subscribe asked for holds: a client that stops showing the figures subscribes again without.
      if (!a.resources) {
        fleet.resources.unwatch(peer);
        return subscribed();
      }
      // The fleet it is answered with carries figures already (sampled now, unless they are fresh).
      return fleet.resources.watch(peer).then(subscribed);
    },
    recipe: () => fleet.recipe(),
    usage: () => conversations.list(fleet.all()),
    shutdown: () => {
      queueMicrotask(() => fleet.stop());
      return null;
    },
    run: async (peer, a) => {
      const cwd = a.cwd ?? peer.hello.cwd;
      const tooLong = commandTooLong(a.command);
      if (tooLong) throw new UserError(tooLong);
      if (!isDirectory(cwd)) throw new UserError(`no such directory: ${cwd}`);
      const log = a.service?.ready && "log" in a.service.ready ? a.service.ready.log : null;
      const badPattern = log === null ? null : logPatternProblem(log);
      if (badPattern) throw new UserError(`--ready-log: ${badPattern}`);
      await fleet.prepareAgent(peer, a.command, cwd);
      const restart = restartOf(a.restart, a.maxRestarts);
      const start = {
        command: a.command,
        cwd,
        group: a.group ?? null,
        name: a.name ?? null,
        worktree: a.worktree ?? null,
        givenEnv: a.env,
        maxMemory: a.maxMemory ?? null,
        service: a.service,
        restart,
        notify: a.notify,
      };
      return { id: fleet.spawn(peer, start).id };
    },
    load: (peer, a) => fleet.loads.load(peer, a.entries, { again: a.again, earlier: a.earlier, snapshot: a.snapshot }),
    duplicates: (_peer, a) => fleet.loads.duplicates(a.entries),
    reload: () => fleet.reloadSettings(),
    notifyTest: () => fleet.notifyTest(),
    setNotify: (_peer, a) => {
      const targets = a.group !== undefined ? fleet.all().filter((t) => t.group === a.group) : (a.tasks ?? []).map((ref) => fleet.find(ref));
      if (targets.length === 0) throw new UserError(a.group !== undefined ? `no task in group '${a.group}'` : "notify: name a task or a group (-g GROUP)");
      for (const t of targets) {
        t.notify = a.on;
        fleet.taskChanged(t, true);
      }
      return { tasks: targets.map((t) => t.id) };
    },
    kill: async (_peer, a) => {
      const targets = a.tasks.map((ref) => fleet.find(ref));
      // Stopped by the user: no policy starts them again, and a restart one waits for is called off.
      for (const t of targets) fleet.restarts.stoppedByUser(t);
      const running = targets.filter((t) => t.running);
      await stopInOrder(running);
      // The answer waits for the exits too, so the next command (rerun, rm) finds the tasks finished.
      await Promise.all(running.map((t) => t.ended(EXIT_REPORTED_WITHIN_MS)));
      return { killed: targets.map((t) => t.id), escaped: fleet.escaped(targets) };
    },
    rm: async (_peer, a) => {
      const targets = a.tasks.map((ref) => fleet.find(ref));
      const running = targets.filter((t) => t.running);
      if (running.length) throw new UserError(stillRunning(running.map((t) => t.id)));
      for (const t of targets) fleet.restarts.cancel(t);
      await Promise.all(targets.map((t) => t.terminate()));
      const escaped = fleet.escaped(targets);
      for (const t of targets) fleet.remove(t);
      return { removed: targets.map((t) => t.id), escaped };
    },
    rerun: async (peer, a) => {
      const task = fleet.find(a.task);
      const finished = () => {
        if (task.running) throw new UserError(`task ${task.id} is still running; only a finished task can be rerun`);
        if (!fleet.holds(task)) throw new UserError(`task ${task.id} was removed`);
      };
      finished();
      // The command it will run: a resume form that failed at once reruns as the bare program, whose pin needs asking.
      await fleet.prepareAgent(peer, task.rerunCommand().command, task.cwd);
      // Its last run's history is read at once as the rerun starts, and kept above the new one.
      await task.readable();
      finished();
      fleet.restarts.freshStart(task);
      const notice = task.rerun(peer.hello.env, fleet.options.scrollback);
      fleet.resources.keepSampling();
      fleet.taskChanged(task, true);
      return { ...task.info(), notice };
    },
    restart: async (peer, a) => {
      const targets = [...new Set(a.tasks.map((ref) => fleet.find(ref)))];
      for (const t of targets) fleet.restarts.stoppedByUser(t);
      const running = targets.filter((t) => t.running);
      await Promise.all(running.map((t) => t.terminate()));
      await Promise.all(running.map((t) => t.ended(EXIT_REPORTED_WITHIN_MS)));
      const escaped = fleet.escaped(targets);
      const tasks: OpResult<"restart">["tasks"] = [];
      for (const task of targets) tasks.push(await runAgainInPlace(fleet, peer, task));
      return { tasks, escaped };
    },
    tag: (_peer, a) => {
      const task = fleet.find(a.task);
      task.tagged = a.on ?? !task.tagged;
      fleet.taskChanged(task, false);
      return task.info();
    },
    rename: (_peer, a) => {
      const task = fleet.find(a.task);
      const tooLong = a.name === null ? null : labelTooLong(a.name, "name");
      if (tooLong) throw new UserError(tooLong);
      const name = a.name === null ? null : normalizeName(a.name);
      // Names are what scripts send to (`send dev …`): two running tasks of one name make it ambiguous.
      const holder = name === null ? undefined : fleet.all().find((t) => t !== task && t.running && t.name === name);
      if (holder && !a.force) throw new UserError(`task ${holder.id} is already named '${name}' (--force moves the name to task ${task.id})`);
      if (holder) {
        holder.name = null;
        fleet.taskChanged(holder, true);
      }
      task.name = name;
      fleet.taskChanged(task, true);
      return task.info();
    },
    group: (_peer, a) => {
      const task = fleet.find(a.task);
      const tooLong = a.group === null ? null : labelTooLong(a.group, "group");
      if (tooLong) throw new UserError(tooLong);
      task.group = a.group === null ? null : normalizeGroup(a.group);
      fleet.taskChanged(task, true);
      return task.info();
    },
    send: async (_peer, a) => {
      const task = fleet.find(a.task);
      if (!task.running) throw new UserError(`task ${task.id} has exited`);
      // Refused whole, never cut: a part of a message typed into a program is worse than none.
      const size = Buffer.byteLength(a.text ?? "", "utf8");
      if (size > MAX_SEND_BYTES) throw new UserError(sendTooLong(size));
      const pending = task.pendingInput;
      if (pending + size > MAX_PENDING_INPUT) throw new UserError(`task ${task.id} is not reading its input (${mebibytes(pending)} pending)`);
      // A prompt submitted opens a checkpoint, begun before the first key goes in and never awaited.
      if (a.enter === true || a.keys?.some((k) => /^enter$/i.test(k))) fleet.checkpoints.prompt(task, a.text ?? "");
      // Text, then Enter as its own keypress once the program has read the text, the task attended
      // as the first key goes in (daemon-typist.ts).
      await fleet.typist.send(task, a);
      return null;
    },
    checkpoints: async (_peer, a) => {
      const task = fleet.find(a.task);
      return { task: task.info(), ...(await fleet.checkpoints.list(task)) };
    },
    peek: async (_peer, a) => {
      const task = fleet.find(a.task);
      if (a.history) {
        const lines = await task.history(a.ansi === true);
        return { text: (a.lines === undefined ? lines : lines.slice(-a.lines)).join("\n"), info: task.info() };
      }
      await task.screen.flushed();
      return { text: task.screen.text(a.lines), info: task.info() };
    },
    // What `grep` searches: every task named (each once), or all; of those, the group's only when one is given.
    history: async (_peer, a) => {
      const named = a.tasks?.length ? [...new Set(a.tasks.map((ref) => fleet.find(ref)))] : fleet.all();
      const group = a.group === undefined ? undefined : normalizeGroup(a.group);
      const chosen = group === undefined ? named : named.filter((t) => t.group === group);
      return Promise.all(chosen.map(async (t) => ({ task: t.info(), lines: await searchedLines(t) })));
    },
    logs: (peer, a) => {
      const task = fleet.find(a.task);
      if (task.diskLog) followLog(peer, task, task.diskLog, { since: a.since, until: a.until, last: a.lines }, a.timestamps === true);
      else if (a.since !== undefined || a.until !== undefined || a.timestamps) throw new UserError(NO_TIMES);
      else followLines(peer, task, a.lines);
      return { kept: task.diskLog !== null, info: task.info() };
    },
    log: (_peer, a) => logPage(fleet.find(a.task), a),
    attach: (peer, a) => {
      const task = fleet.find(a.task);
      // A new size is told to subscribers: the web view draws the task's screen at it.
      if (attach(peer, task, a.cols !== undefined && a.rows !== undefined ? { cols: a.cols, rows: a.rows } : null)) fleet.taskChanged(task, false);
      return task.info();
    },
    detach: (peer) => {
      detach(peer);
      return null;
    },
    // The attached task switched screens: its client's terminal stays where it is (ui-attach.ts).
    redraw: (peer) => {
      if (peer.view.kind === "attached") sendScreen(peer, peer.view);
      return null;
    },
    follow: (peer, a) => {
      const task = fleet.find(a.task);
      follow(peer, task, a.lines);
      return task.info();
    },
    resize: (peer, a) => {
      if (peer.view.kind === "attached" && peer.view.task.resize(a.cols, a.rows)) fleet.taskChanged(peer.view.task, false);
      return null;
    },
  };
}

/** What grep searches: the task's whole log while one is kept, else its history (the scrollback). */
async function searchedLines(task: Task): Promise<string[]> {
  if (!task.diskLog) return task.history();
  const lines: string[] = [];
  let from: number | undefined;
  do {
    const page = task.diskLog.read({}, false, from);
    for (const line of page.text.split("\n").slice(0, -1)) lines.push(line);
    from = page.next ?? undefined;
  } while (from !== undefined);
  return lines;
}

/** A page of a task's log; with history off, its scrollback, which has no times to choose lines by. */
const NO_TIMES = "no log is kept (history = false), so lines have no times: --since, --until and --timestamps need history on";

async function logPage(task: Task, a: OpArgs<"log">): Promise<OpResult<"log">> {
  if (task.diskLog) {
    const { text, next } = task.diskLog.read({ since: a.since, until: a.until, last: a.lines }, a.timestamps === true, a.from);
    return { text, kept: true, next, info: task.info() };
  }
  if (a.since !== undefined || a.until !== undefined || a.timestamps) throw new UserError(NO_TIMES);
  const lines = await task.history();
  const chosen = a.lines === undefined ? lines : a.lines === 0 ? [] : lines.slice(-a.lines);
  return { text: chosen.map((l) => `${l}\n`).join(""), kept: false, next: null, info: task.info() };
}

/** A stopped task run again as a rerun does (its history kept, an agent resumed), whatever its policy. */
async function runAgainInPlace(fleet: Fleet, peer: Peer, task: Task): Promise<TaskInfo & { notice: string | null }> {
  await fleet.prepareAgent(peer, task.rerunCommand().command, task.cwd);
  await task.readable();
  if (!fleet.holds(task)) throw new UserError(`task ${task.id} was removed`);
  if (task.running) throw new UserError(`task ${task.id} did not stop; not restarted`);
  fleet.restarts.freshStart(task);
  const notice = task.rerun(peer.hello.env, fleet.options.scrollback);
  fleet.taskChanged(task, true);
  return { ...task.info(), notice };
}

/** `task 9 is still running; …`, `tasks 9 and 10 are still running; …`, `tasks 8, 9 and 10 are …`. */
export function stillRunning(ids: readonly number[]): string {
  const listed = ids.length === 1 ? `task ${ids[0]} is` : `tasks ${ids.slice(0, -1).join(", ")} and ${ids.at(-1)} are`;
  return `${listed} still running; kill ${ids.length === 1 ? "it" : "them"} first, or rm --force kills and removes`;
}
