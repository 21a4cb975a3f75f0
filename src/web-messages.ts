// What the page sends over its WebSocket, as an arktype schema (validator.ts: precompiled at build
// time), and what the web view sends back, as plain types (sent, never received). Everything that
// acts on a task names it by id, as the dashboard does; typing goes to the task being viewed.
import { schema } from "./validator.ts";

const id = "number.integer >= 0";

export const pageMessage = schema("web.page", (type) =>
  type({ type: "'view'", task: `${id} | null` })
    .or({ type: "'input'", data: "string > 0" })
    .or({ type: "'send'", task: id, text: "string > 0" })
    .or({ type: "'keys'", task: id, keys: type("string > 0").array().atLeastLength(1) })
    .or({ type: "'rerun' | 'kill'", task: id }),
);
export type PageMessage = typeof pageMessage.infer;

/** A task as the page lists it: what the dashboard's row says, in fields. */
export interface Card {
  id: number;
  glyph: string;
  label: string;
  /** `waiting: permission`, `active`, `exited 1`… (ui-format.ts stateText). */
  state: string;
  /** What the task waits for, in its own words, when it says. */
  message: string | null;
  preview: string;
  age: string;
  running: boolean;
}

export interface FleetView {
  /** The page's title: `(2) fleetcom` while two tasks wait. */
  title: string;
  /** `2 tasks · ! 1 waiting · ∙ 1 idle`: the dashboard's counts. */
  summary: string;
  waiting: number;
  sections: { title: string; cards: Card[] }[];
}

export type ServerMessage =
  | { type: "hello"; write: boolean; keys: string[] }
  | { type: "fleet"; view: FleetView }
  /** The whole screen of the viewed task, drawn into a terminal of this size (serializeForAttach). */
  | { type: "screen"; task: number; cols: number; rows: number; data: string }
  | { type: "ended"; task: number; reason: string }
  | { type: "error"; message: string }
  | { type: "daemon"; connected: boolean };
