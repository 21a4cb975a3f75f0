// What the page sends over its WebSocket, as an arktype schema (validator.ts: precompiled at build
// time), and what the web view sends back, as plain types (sent, never received). Everything that
// acts on a task names it by id, as the dashboard does; typing goes to the task being viewed.
import { schema } from "./validator.ts";
import type { ChangedFile } from "./web-changes.ts";
import type { CheckpointRow } from "./web-checkpoints.ts";

const id = "number.integer >= 0";
/** The host a task is on (a `[hosts.NAME]` of config.toml, as client-hosts.ts names them); absent: this machine. */
const host = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

export const pageMessage = schema("web.page", (type) =>
  type({ type: "'view'", task: `${id} | null`, "host?": host })
    .or({ type: "'input'", data: "string > 0" })
    .or({ type: "'send'", task: id, "host?": host, text: "string > 0" })
    .or({ type: "'keys'", task: id, "host?": host, keys: type("string > 0").array().atLeastLength(1) })
    .or({ type: "'rerun' | 'kill' | 'history' | 'changes' | 'checkpoints'", task: id, "host?": host })
    // A rewind to checkpoint n (web-checkpoints.ts): a page that may act only, as every action.
    .or({ type: "'rewind'", task: id, "host?": host, n: "0 <= number.integer <= 1000000" })
    .or({ type: "'file-diff'", task: id, "host?": host, path: "0 < string <= 4096" })
    // Review comments on lines of a file's diff, sent to the agent as one prompt (web-changes.ts).
    .or({
      type: "'review'",
      task: id,
      "host?": host,
      comments: type({ file: "0 < string <= 4096", from: "number.integer >= 1", to: "number.integer >= 1", text: "0 < string <= 16384" })
        .array()
        .atLeastLength(1)
        .atMostLength(50),
    }),
);
export type PageMessage = typeof pageMessage.infer;

/** A task as the page lists it: what the dashboard's row says, in fields. */
export interface Card {
  id: number;
  /** The host it runs on; null: this machine. */
  host: string | null;
  glyph: string;
  label: string;
  /** `waiting: permission`, `active`, `exited 1`… (view-task.ts stateText). */
  state: string;
  /** What the task waits for, in its own words, when it says. */
  message: string | null;
  preview: string;
  age: string;
  /** Its CPU and memory while sampled (`97% · 212M`), else "". */
  use: string;
  /** The last minute of its CPU as bars (task-resources.ts sparkline), "" when not sampled. */
  spark: string;
  /** How long it has waited (the current wait, from when its attention was raised); null: not waiting. */
  waited: string | null;
  running: boolean;
  /** `restarting in 2s ↻3`, `↻3`, or "" (view-task.ts restartText; docs/services.md). */
  restart: string;
  /** What it changed in its repository, `+120 −14`, or "" (text-changes.ts changesCell; docs/review.md). */
  changes: string;
}

export interface FleetView {
  /** The page's title: `(2) fleetcom` while two tasks wait. */
  title: string;
  /** `2 tasks · ! 1 waiting · ∙ 1 idle`: the dashboard's counts. */
  summary: string;
  waiting: number;
  /** `note`: a host's one line in place of its tasks (unreachable and why, or still connecting). */
  sections: { title: string; cards: Card[]; note?: string }[];
}

export type ServerMessage =
  /** `writeLink`, on a read-only page: the command that prints a link that may type. */
  | { type: "hello"; write: boolean; keys: string[]; writeLink: string | null }
  | { type: "fleet"; view: FleetView }
  /** The whole screen of the viewed task, drawn into a terminal of this size (serializeForAttach). */
  /** `fullScreen`: a full-screen program's (its alternate screen), which the page draws cell for cell. */
  | { type: "screen"; task: number; host: string | null; cols: number; rows: number; fullScreen: boolean; data: string }
  | { type: "ended"; task: number; host: string | null; reason: string }
  /** The task's kept history (peek --history), plain and sanitised; `cut`: older lines were left out. */
  | { type: "history"; task: number; host: string | null; text: string; lines: number; cut: boolean }
  /** The files the task changed since its baseline (web-changes.ts); `more`: files left out past the bound. */
  | { type: "changes"; task: number; host: string | null; files: ChangedFile[]; more: number }
  /** One file's diff since the baseline, sanitised text; `cut`: its end was left out. */
  | { type: "file-diff"; task: number; host: string | null; path: string; text: string; cut: boolean }
  /** The review comments reached the agent as one prompt. */
  | { type: "reviewed"; task: number; host: string | null; comments: number }
  /** The task's checkpoints, newest first (web-checkpoints.ts); `note`: why there are none, or that they are paused. */
  | { type: "checkpoints"; task: number; host: string | null; checkpoints: CheckpointRow[]; note: string | null }
  /** What a rewind did, or why it changed nothing (`ok` false), as `fleetcom rewind` says it. */
  | { type: "rewound"; task: number; host: string | null; n: number; ok: boolean; text: string }
  | { type: "error"; message: string }
  | { type: "daemon"; connected: boolean };
