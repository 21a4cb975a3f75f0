// The control messages of the socket protocol as arktype schemas; their types are inferred from
// them. The daemon validates every frame a client sends with these (validator.ts: precompiled at
// build time, arktype loaded only to word a refusal). Clients import only the types (erased at build
// time), so neither is on their start-up path.
import { schema } from "./validator.ts";
import type { Attention } from "./task-attention.ts";
import type { TokenUsage } from "./task-usage.ts";
import type { Baseline } from "./git.ts";
import type { ChangeStats } from "./text-changes.ts";
import type { Checkpoint } from "./git-checkpoint.ts";
import type { RestartPolicy } from "./task-restart.ts";
import type { SettingChange, Settings } from "./settings.ts";
import { recipeEntry, type RecipeEntry, restartPolicy, type WorktreeRecord, worktreeRecord } from "./recipe.ts";
import { serviceFields } from "./recipe-services.ts";
import type { Readiness } from "./task-ready.ts";

export type { RecipeEntry };

const dimension = "1 <= number.integer <= 1000";
const label = "string | null";

/**
 * Which task an op is about: the id of a task the client holds (the dashboard, attach, a picker), found
 * by id only, or what a user typed as TASK, resolved by task-ref.ts's rules. A client that knows the
 * id never sends it as text, so a removed task's id cannot reach another task through a name or prefix.
 */
const taskRef = schema("taskRef", (type) => type({ id: "number.integer" }).or({ typed: "string > 0" }));
export type TaskRef = typeof taskRef.infer;

export const hello = schema("hello", (type) =>
  type({
    type: "'hello'",
    protocol: "number.integer",
    version: "string",
    cwd: "string",
    env: "Record<string, string>",
    cols: dimension,
    rows: dimension,
    /** The client shows one-time notices (a crashed previous fleet, config file problems): the first such client gets them. */
    "notices?": "boolean",
    /**
     * Whose environment and directory this client's tasks get: the ones sent (the default), or this
     * host's, the daemon's own, for a client on another machine whose ssh connection forwards to this
     * socket without a bridge to put the login's in (client-ssh.ts, docs/remote.md).
     */
    "environment?": "'sent' | 'host'",
  }),
);
export type Hello = typeof hello.infer;

export const opArgs = {
  /** `resources`: the client shows each task's CPU and memory (`ls`): figures at most one sampling interval old. */
  ls: schema("op.ls", (type) => type({ "resources?": "boolean" })),
  status: schema("op.status", (type) => type({})),
  /**
   * `resources`: the client shows each task's CPU and memory: they are sampled while it stays
   * (daemon-resources.ts), or until it subscribes again without.
   */
  subscribe: schema("op.subscribe", (type) => type({ "resources?": "boolean" })),
  recipe: schema("op.recipe", (type) => type({})),
  /** `fleetcom usage`: every conversation this daemon knows, live or saved, each once (docs/usage.md). */
  usage: schema("op.usage", (type) => type({})),
  shutdown: schema("op.shutdown", (type) => type({})),
  detach: schema("op.detach", (type) => type({})),
  redraw: schema("op.redraw", (type) => type({})),
  run: schema("op.run", (type) =>
    type({
      command: "string > 0",
      "cwd?": "string",
      "group?": label,
      "name?": label,
      "worktree?": worktreeRecord.type(),
      /** `run --env K=V`: over the environment the task would get, on whichever host runs it. */
      "env?": "Record<string, string>",
      /** `run --max-memory`: bytes of resident memory the task's group may use before it is stopped. */
      "maxMemory?": "number.integer > 0",
      /** `run --ready-* --stop-*`: the task's readiness probe and stop (recipe-services.ts). */
      "service?": serviceFields.type(),
      /** `run --restart` and `--max-restarts` (task-restart.ts; 0: no limit). */
      "restart?": restartPolicy.type(),
      "maxRestarts?": "0 <= number.integer <= 1000000",
      /** `run --no-notify`: nothing about the task is pushed. */
      "notify?": "boolean",
    }),
  ),
  load: schema("op.load", (type) => type({ entries: recipeEntry.type().array(), "again?": "boolean", "earlier?": "number.integer[]", "snapshot?": "string" })),
  kill: schema("op.kill", (type) => type({ tasks: taskRef.type().array().atLeastLength(1) })),
  rm: schema("op.rm", (type) => type({ tasks: taskRef.type().array().atLeastLength(1) })),
  rerun: schema("op.rerun", (type) => type({ task: taskRef.type() })),
  /** Stop each task as `kill` does (no policy restarts it), then run it again in place, its history kept. */
  restart: schema("op.restart", (type) => type({ tasks: taskRef.type().array().atLeastLength(1) })),
  // `on`: set or clear the tag; without it, toggle.
  tag: schema("op.tag", (type) => type({ task: taskRef.type(), "on?": "boolean" })),
  // `force`: take a name another running task holds, which then has none.
  rename: schema("op.rename", (type) => type({ task: taskRef.type(), name: label, "force?": "boolean" })),
  group: schema("op.group", (type) => type({ task: taskRef.type(), group: label })),
  send: schema("op.send", (type) =>
    type({ task: taskRef.type(), "text?": "string", "enter?": "boolean", "paste?": "boolean", "keys?": type("string > 0").array().atLeastLength(1) }),
  ),
  /** The task's checkpoints (daemon-checkpoints.ts). */
  checkpoints: schema("op.checkpoints", (type) => type({ task: taskRef.type() })),
  peek: schema("op.peek", (type) => type({ task: taskRef.type(), "lines?": "number.integer > 0", "history?": "boolean", "ansi?": "boolean" })),
  history: schema("op.history", (type) => type({ "tasks?": taskRef.type().array(), "group?": "string" })),
  /** `logs --follow`: the log kept (filtered as `log`'s), then its new lines; without a log (history off) the scrollback's. */
  logs: schema("op.logs", (type) =>
    type({ task: taskRef.type(), "lines?": "number.integer >= 0", "since?": "number", "until?": "number", "timestamps?": "boolean" }),
  ),
  /** A page of the task's log on disk (daemon-logs.ts): times are epoch ms, `from` the part a page starts at. */
  log: schema("op.log", (type) =>
    type({
      task: taskRef.type(),
      "lines?": "number.integer >= 0",
      "since?": "number",
      "until?": "number",
      "timestamps?": "boolean",
      "from?": "number.integer > 0",
    }),
  ),
  /** Without a size, the client looks without resizing the task (the web view): the screen comes at the task's size, TaskInfo's `cols`/`rows`. */
  attach: schema("op.attach", (type) => type({ task: taskRef.type(), "cols?": dimension, "rows?": dimension })),
  follow: schema("op.follow", (type) => type({ task: taskRef.type(), "lines?": "number.integer > 0" })),
  resize: schema("op.resize", (type) => type({ cols: dimension, rows: dimension })),
  duplicates: schema("op.duplicates", (type) => type({ entries: recipeEntry.type().array() })),
  reload: schema("op.reload", (type) => type({})),
  notifyTest: schema("op.notifyTest", (type) => type({})),
  /** `fleetcom notify off|on TASK…` or `-g GROUP`: whether those tasks' news is pushed. */
  setNotify: schema("op.setNotify", (type) => type({ "tasks?": taskRef.type().array(), "group?": label, on: "boolean" })),
} as const;
export type Op = keyof typeof opArgs;
export type OpArgs<O extends Op> = (typeof opArgs)[O]["infer"];

export const request = schema("request", (type) =>
  type({
    type: "'request'",
    id: "number.integer >= 0",
    op: type.enumerated(...(Object.keys(opArgs) as Op[])),
    "args?": "object",
  }),
);
export type Request = typeof request.infer;

/** A task as every client sees it (`ls --json` prints it; docs/commands.md). Sent, never received: a plain type. */
export interface TaskInfo {
  id: number;
  run: number;
  /** What runs: as typed, or an agent's resume form after a load, a recovery or a rerun. */
  command: string;
  /** The command as its user typed it, which names the task where it has no name (task-labels.ts `label`). */
  typed: string;
  name: string | null;
  group: string | null;
  cwd: string;
  tagged: boolean;
  state: "running" | "exited";
  idle: boolean;
  exitCode: number | null;
  signal: string | null;
  pid: number | null;
  startedAt: string;
  endedAt: string | null;
  lastOutputAt: string | null;
  preview: string;
  agent: string | null;
  conversation: string | null;
  attention: Attention | null;
  /** The tokens of an agent's conversation, from its own store (docs/usage.md); null when none is known or the store records none. */
  usage: TokenUsage | null;
  /** The git worktree fleetcom made for the task (`run --worktree`), or null. */
  worktree: WorktreeRecord | null;
  /** Its git baseline (docs/review.md): what `diff` compares with; null outside a repository, before it is taken, or for a task that gets none. */
  baseline: Baseline | null;
  /** Files, lines added and removed since the baseline; null until counted or without a baseline. */
  changes: ChangeStats | null;
  /** Started by a load (a saved session, a snapshot), not by `run` or the dashboard's `n`: `r` on it asks first only when not. */
  loaded: boolean;
  /** Whether its news goes to notify's destinations: false after `run --no-notify` or `fleetcom notify off` (docs/notify.md). */
  notify: boolean;
  /** The size of the task's terminal: what its screen is drawn at (the last attached client's). */
  cols: number;
  rows: number;
  /** Percent of one core its whole process group used (docs/daemon.md); null when not sampled (no client shows it, or it has exited). */
  cpu: number | null;
  /** Resident memory of its whole process group, in bytes; null when not sampled. */
  rss: number | null;
  /** Threads and processes in its group at the last sample; null when not sampled. */
  threads: number | null;
  processes: number | null;
  /** CPU at each sample of the last minute, oldest first (one every 2 s while a client shows them); empty when none. */
  cpuRecent: number[];
  /** `--max-memory` (recipe `max_memory`), in bytes; null when it has none. */
  maxMemory: number | null;
  /** Why fleetcom stopped this run itself (`memory 2.1G over --max-memory 2G`); null when it did not. */
  stopReason: string | null;
  /** Whether its readiness probe has passed (docs/services.md); null for a task without one. */
  readiness: Readiness | null;
  /** Its restart policy (docs/services.md), how many restarts it allows in a row (0: no limit) and has had. */
  restart: RestartPolicy;
  maxRestarts: number;
  restarts: number;
  /** While it waits out its backoff: when it starts again (ISO 8601); else null. */
  nextRestartAt: string | null;
}

/** A process that left its task's process group, which `kill` and `rm` report and never signal. */
export interface Escapee {
  task: number;
  pid: number;
  command: string;
}

/** `status`: the daemon, its clients' queues (daemon.md, backpressure) and its snapshot writer. */
export interface DaemonStatus {
  running: true;
  pid: number;
  version: string;
  startedAt: string;
  socket: string;
  tasks: { total: number; running: number };
  clients: { connected: number; queuedBytes: number; maxQueuedBytes: number; waitingEvents: number; droppedBehind: number; inputBlocked: number };
  snapshotError: SnapshotError | null;
  snapshotPendingSince: string | null;
  history: HistoryStatus;
  /** The previous fleet of this runtime directory ended without a clean stop and is not recovered yet. */
  crash: CrashNotice | null;
  /** The daemon's own settings as it last read them (at start, or a reload), and where each came from (`fleetcom config`). */
  settings: DaemonSettings | null;
  /** Each of notify's destinations, and how sending to it goes (daemon-notify.ts). */
  push: PushStatus[];
  /** Tasks' CPU and memory sampling (daemon-resources.ts): samples taken since the start, and the clients now showing them. */
  resources: { samples: number; watchers: number };
}

/** One of notify's destinations in `status` and `fleetcom config` (docs/notify.md). */
export interface PushStatus {
  /** As written in the settings. */
  destination: string;
  sent: number;
  /** Pushes given up on after their last attempt, or dropped from a full queue. */
  failed: number;
  queued: number;
  lastSent: string | null;
  /** The last failure, whether or not a later attempt went through (`lastSent` after it says so). */
  lastError: { message: string; at: string } | null;
}

/** `fleetcom notify test`: what one destination answered the sample. */
export interface NotifyTestResult {
  destination: string;
  ok: boolean;
  /** `HTTP 200`, `exit 0`, or why it failed. */
  detail: string;
}

/** The history kept on disk (daemon-history.ts): off or on, writes and bytes so far, the failure of the current streak. */
export interface HistoryStatus {
  enabled: boolean;
  writes: number;
  bytes: number;
  error: string | null;
  /** The tasks' logs (daemon-logs.ts): their size on disk, each one's cap, and what stopped their writes. */
  logBytes?: number;
  logMax?: number;
  logError?: string | null;
}

/** One task's history, as `grep` searches it. */
export interface TaskHistory {
  task: TaskInfo;
  lines: string[];
}

/** What the daemon settled on at start or at its last reload (settings.ts): the settings it goes by. */
export type DaemonSettings = Pick<Settings, "file" | "notify" | "notifyMinRuntime" | "notifyIdle" | "scrollback" | "idleSeconds" | "history" | "problems">;

/**
 * The previous supervisor for this runtime directory ended without a clean stop (a crash, a kill -9,
 * a logout or a reboot), and the snapshot of its fleet has not been recovered (daemon-clean-stop.ts).
 */
export interface CrashNotice {
  /** The snapshot's file name in the recovery directory. */
  snapshot: string;
  /** Tasks a recovery would start. */
  tasks: number;
  writtenAt: string;
  /** The command that recovers it: `fleetcom recover --latest`, or with the file name when another snapshot is newer. */
  recover: string;
}

/** Told once, to the first client whose hello asks for notices. */
export interface Notices {
  crash: CrashNotice | null;
  /** One line per problem with the config file or a setting in the daemon's environment. */
  config: string[];
}

/** Sent to subscribed clients when the crash notice is cleared (the fleet was recovered). */
export interface CrashChange {
  type: "crash";
  crash: CrashNotice | null;
}

/**
 * What each operation answers. With `opArgs` this is the whole contract: the client's request()
 * and the daemon's handler table are both typed by it, so a misspelt op, a wrong argument or a
 * result read as something else does not compile.
 */
/**
 * One conversation as `fleetcom usage` counts it: an agent task of the fleet (`task`, its id; its
 * usage null when its store records none), or a conversation a saved session or recovery snapshot
 * resumes that no task runs (`task` null, listed only with usage). `at`: when its store last recorded
 * something (ISO 8601), else, for a task, when it was last heard from; null when neither is known.
 */
export interface ConversationUsage {
  agent: string;
  conversation: string | null;
  group: string | null;
  usage: TokenUsage | null;
  at: string | null;
  task: number | null;
}

/** A recovered task whose recorded id was in use (`from`), and the id it got instead (`to`). */
export type IdChange = { from: number; to: number };

export interface OpResults {
  ls: TaskInfo[];
  status: DaemonStatus;
  subscribe: TaskInfo[];
  recipe: RecipeEntry[];
  usage: ConversationUsage[];
  shutdown: null;
  detach: null;
  redraw: null;
  run: { id: number };
  /**
   * `skipped`: entries whose directory is missing; `alreadyRunning`: entries a running task stands for
   * (sessions.md); `idsChanged`: entries whose recorded id was in use, so their task got another;
   * `couldNotStart`: tasks whose run failed at once (no PTY to be had), kept in the fleet as exited 127.
   */
  load: {
    started: number[];
    couldNotStart: { id: number; error: string }[];
    skipped: number;
    alreadyRunning: number;
    idsChanged: IdChange[];
    /** Entries whose `after` could never hold (docs/services.md), each with why: `api not started: waits on db, which exited 1`. */
    notStarted?: string[];
  };
  kill: { killed: number[]; escaped: Escapee[] };
  rm: { removed: number[]; escaped: Escapee[] };
  /** `notice`: what fleetcom did instead of the saved resume form, when it could not resume. */
  rerun: TaskInfo & { notice: string | null };
  /** Each task restarted, with the notice a rerun would give. */
  restart: { tasks: (TaskInfo & { notice: string | null })[]; escaped: Escapee[] };
  tag: TaskInfo;
  rename: TaskInfo;
  group: TaskInfo;
  send: null;
  /** `top`: the repository's top, null outside one or for a task that gets none; `paused`: the disk is low. */
  checkpoints: { task: TaskInfo; top: string | null; paused: boolean; checkpoints: Checkpoint[] };
  /** With `history`, text is the task's history (`lines` of it), else its screen. */
  peek: { text: string; info: TaskInfo };
  /** The tasks named (all without `tasks`), those in `group` only when given, in fleet order. */
  history: TaskHistory[];
  /** Then the task's history as lines, and each line as the task completes it, until an attach-end. */
  /** `kept`: false when no log is kept (history is off): the lines followed are the terminal's. */
  logs: { kept: boolean; info: TaskInfo };
  /** `kept`: false when no log is kept (history is off), and then text is the scrollback; `next`: the next page's `from`. */
  log: { text: string; kept: boolean; next: number | null; info: TaskInfo };
  attach: TaskInfo;
  follow: TaskInfo;
  resize: null;
  /** For each entry, whether a running task already stands for it: what a load without `again` skips (a dry run asks). */
  duplicates: boolean[];
  /** The daemon read its settings again (SIGHUP does the same): what changed, and the settings now in effect. */
  reload: { changes: SettingChange[]; settings: DaemonSettings };
  /** A sample sent to every destination of notify, each tried once. */
  notifyTest: NotifyTestResult[];
  /** The tasks whose setting was changed. */
  setNotify: { tasks: number[] };
}
export type OpResult<O extends Op> = OpResults[O];

/** The answer to request `id`: its op's result, or why it was refused. */
export type Reply = Answered | Failed;

export interface Answered {
  type: "reply";
  id: number;
  ok: true;
  /** The result of the request's op: the client holds which op `id` was, and reads it as that op's result. */
  result: OpResult<Op>;
}

export interface Failed {
  type: "reply";
  id: number;
  ok: false;
  error: string;
}

export interface TaskEvent {
  type: "event";
  event: "created" | "changed" | "exited" | "removed";
  task: TaskInfo;
}

/** The recovery snapshot writer's trouble: set when a failure streak begins, cleared by the next write. */
export interface SnapshotError {
  message: string;
  since: string;
}

/** Sent to subscribed clients when snapshot writing starts or stops failing. */
export interface SnapshotNotice {
  type: "snapshot";
  error: SnapshotError | null;
}

/** What subscribed clients are told; while a client is behind, only the latest of each is kept. */
export type DaemonEvent = TaskEvent | SnapshotNotice | CrashChange;

export interface AttachEnd {
  type: "attach-end";
  reason: "exited" | "removed" | "shutdown";
  task: TaskInfo;
}

export interface Welcome {
  type: "welcome";
  protocol: number;
  version: string;
  pid: number;
  /** Where this daemon listens: a client on another machine forwards its ssh connection here (client-ssh.ts). */
  socket: string;
  /** Random, one per start of the daemon: a forwarded connection is used only to the daemon it was made for. */
  instance: string;
  /** Only for a hello that asked, and only until one client has been told. */
  notices?: Notices;
}

export interface Refusal {
  type: "refused";
  error: string;
  /** A hello of another protocol is told the daemon's own, so a client can name both (and the upgrade). */
  daemon?: { protocol: number; version: string };
}

/**
 * The next data frame is a whole screen of the attached task (serializeForAttach): every byte of
 * output sent before it is already in it. A client waiting for a redraw drops what came before.
 */
export interface ScreenFollows {
  type: "screen";
  /** The task shows a full-screen program (its alternate screen); absent from daemons before it was sent. */
  fullScreen?: boolean;
}

/**
 * `logs --follow`: this many lines were not sent, because the client had fallen megabytes behind
 * (daemon-peers.ts). Sent before the next line that is, and before the attach-end.
 */
export interface LinesSkipped {
  type: "skipped";
  lines: number;
}

/**
 * Everything the daemon sends as a control frame (daemon-connection.ts `send`), one member per `type`.
 * The client handles each in one exhaustive switch (client.ts), so a new member it does not handle,
 * or a field it reads that no member carries, does not compile.
 */
export type DaemonMessage = Reply | TaskEvent | SnapshotNotice | CrashChange | AttachEnd | Welcome | Refusal | ScreenFollows | LinesSkipped;

/** Everything a client sends as a control frame: the hello, then requests. */
export type ClientMessage = Hello | Request;
