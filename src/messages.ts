// The control messages of the socket protocol as arktype schemas; their types are inferred from
// them. The daemon validates every frame a client sends with these. Clients import only the types
// (erased at build time), so arktype stays off their start-up path.
import { type } from "arktype";
import { recipeEntry, type RecipeEntry } from "./session.ts";

export type { RecipeEntry };

const dimension = "1 <= number.integer <= 1000";
const taskRef = "string > 0";
const label = "string | null";

export const hello = type({
  type: "'hello'",
  protocol: "number.integer",
  version: "string",
  cwd: "string",
  env: "Record<string, string>",
  cols: dimension,
  rows: dimension,
});
export type Hello = typeof hello.infer;


export const opArgs = {
  ls: type({}),
  status: type({}),
  subscribe: type({}),
  recipe: type({}),
  shutdown: type({}),
  detach: type({}),
  run: type({ command: "string > 0", "cwd?": "string", "group?": label, "name?": label }),
  load: type({ entries: recipeEntry.array() }),
  kill: type({ tasks: type(taskRef).array().atLeastLength(1) }),
  rm: type({ tasks: type(taskRef).array().atLeastLength(1) }),
  rerun: type({ task: taskRef }),
  tag: type({ task: taskRef }),
  rename: type({ task: taskRef, name: label }),
  group: type({ task: taskRef, group: label }),
  send: type({ task: taskRef, "text?": "string", "enter?": "boolean", "paste?": "boolean", "keys?": type("string > 0").array().atLeastLength(1) }),
  peek: type({ task: taskRef, "lines?": "number.integer > 0" }),
  attach: type({ task: taskRef, cols: dimension, rows: dimension }),
  follow: type({ task: taskRef, "lines?": "number.integer > 0" }),
  resize: type({ cols: dimension, rows: dimension }),
} as const;
export type Op = keyof typeof opArgs;
export type OpArgs<O extends Op> = (typeof opArgs)[O]["infer"];

export const request = type({
  type: "'request'",
  id: "number.integer >= 0",
  op: type.enumerated(...(Object.keys(opArgs) as Op[])),
  "args?": "object",
});
export type Request = typeof request.infer;

const attention = type({ state: "'input' | 'permission' | 'bell'", since: "string", message: "string | null" });

export const taskInfo = type({
  id: "number.integer",
  run: "number.integer",
  command: "string",
  name: label,
  group: label,
  cwd: "string",
  tagged: "boolean",
  state: "'running' | 'exited'",
  idle: "boolean",
  exitCode: "number.integer | null",
  signal: "string | null",
  pid: "number.integer | null",
  startedAt: "string",
  endedAt: "string | null",
  lastOutputAt: "string | null",
  preview: "string",
  agent: "string | null",
  conversation: "string | null",
  attention: attention.or("null"),
});
export type TaskInfo = typeof taskInfo.infer;

export interface Reply {
  type: "reply";
  id: number;
  ok: boolean;
  result?: unknown;
  error?: string;
}

export interface TaskEvent {
  type: "event";
  event: "created" | "changed" | "exited" | "removed";
  task: TaskInfo;
}

export interface AttachEnd {
  type: "attach-end";
  reason: "exited" | "removed" | "replaced" | "shutdown";
  task: TaskInfo;
}

export interface Welcome {
  type: "welcome";
  protocol: number;
  version: string;
  pid: number;
}

export interface Refusal {
  type: "refused";
  error: string;
}

export type DaemonMessage = Reply | TaskEvent | AttachEnd | Welcome | Refusal;
