// The client/daemon contract is one table (wire-protocol.ts): `make test` type-checks this file, so
// each line marked @ts-expect-error must fail to compile, or tsc reports the marker as unused.
import { expect, test } from "bun:test";
import type { DaemonClient } from "../../src/client.ts";
import type { Connection } from "../../src/daemon-connection.ts";
import type { Spec } from "../../src/settings.ts";
import type { KeyId } from "../../src/ui-keys.ts";
import type { Chord } from "../../src/ui-attach-chords.ts";
import type { DaemonMessage, Reply, TaskInfo } from "../../src/wire-protocol.ts";

function misuses(c: DaemonClient): unknown[] {
  return [
    // @ts-expect-error: no such operation
    c.request("lss"),
    // @ts-expect-error: run needs a command
    c.request("run", {}),
    // @ts-expect-error: rename's name is a string or null, not a number
    c.request("rename", { task: { id: 1 }, name: 3 }),
    // @ts-expect-error: peek answers { text, info }, not a list of tasks
    c.request("peek", { task: { id: 1 } }).then((tasks: TaskInfo[]) => tasks),
    // @ts-expect-error: logs needs the task it follows
    c.request("logs", {}),
    // @ts-expect-error: history's tasks are references ({ id } or { typed }), not bare ids
    c.request("history", { tasks: [1] }),
    // @ts-expect-error: a reference is never bare text: the daemon could not tell a held id from typed text
    c.request("kill", { tasks: ["1"] }),
    // @ts-expect-error: a held id is a number, not its text
    c.request("attach", { task: { id: "1" }, cols: 80, rows: 24 }),
  ];
}

// The other direction: what the daemon sends is one of DaemonMessage, which the client switches over whole.
function daemonMisuses(conn: Connection, task: TaskInfo, reply: Reply): unknown[] {
  return [
    // @ts-expect-error: no message of that kind: the client has no case for it
    conn.send({ type: "resized", cols: 80, rows: 24 }),
    // @ts-expect-error: nothing ends a stream as "replaced"
    conn.send({ type: "attach-end", reason: "replaced", task }),
    // @ts-expect-error: skipped carries `lines`, not `count`
    conn.send({ type: "skipped", count: 3 }),
    // @ts-expect-error: a reply is answered or failed, never both
    conn.send({ type: "reply", id: 1, ok: true, error: "no" }),
    // @ts-expect-error: a reply's result is there only once `ok` says it was answered
    reply.result,
    (message: DaemonMessage) => {
      // @ts-expect-error: only a refusal carries an error
      if (message.type === "welcome") return message.error;
      return message.type;
    },
  ];
}

// Reading a reply field its op does not return.
function replyMisuses(c: DaemonClient): unknown[] {
  return [
    // @ts-expect-error: run answers { id }, not a task
    c.request("run", { command: "true" }).then((r) => r.command),
    // @ts-expect-error: kill answers { killed, escaped }; `removed` is rm's
    c.request("kill", { tasks: [{ id: 1 }] }).then((r) => r.removed),
    // @ts-expect-error: a load's tasks that could not start are `couldNotStart`
    c.request("load", { entries: [] }).then((r) => r.failed),
  ];
}

// Tables that were cast or keyed by bare strings: a missing member or a misspelt key does not compile.
function tableMisuses(): unknown[] {
  // @ts-expect-error: a setting's spec needs fromEnv as well as fromFile (settings.ts types SPECS, never casts)
  const noEnv: Spec<number> = { key: "k", env: "K", fallback: 1, fromFile: () => ({ ok: 1 }) };
  // @ts-expect-error: a misspelt key in a dashboard or picker action table
  const actions: Partial<Record<KeyId, () => void>> = { pagedwon: () => {} };
  // @ts-expect-error: a chord key must be a key fleetcom names (`ctrl-n`, not `ctl-n`)
  const chord: Chord = { keys: ["ctl-n"], action: "next", help: "next task", word: "next" };
  return [noEnv, actions, chord];
}

function uses(c: DaemonClient): Promise<unknown>[] {
  return [
    c.request("ls").then((tasks: TaskInfo[]) => tasks.map((t) => t.id)),
    c.request("run", { command: "true" }).then(({ id }) => id + 1),
    c.request("status").then((s) => s.tasks.running + s.history.writes),
    c.request("history", { group: "back" }).then((found) => found.map((h) => h.lines.length + h.task.id)),
    c.request("peek", { task: { typed: "api" }, history: true, ansi: true, lines: 5 }).then(({ text }) => text.length),
    c.request("kill", { tasks: [{ id: 1 }, { typed: "1-api" }] }).then(({ killed }) => killed.length),
  ];
}

test("the contract types requests, replies and daemon messages, and key and setting tables are checked (by tsc in make test)", () => {
  expect([misuses, daemonMisuses, replyMisuses, tableMisuses, uses].map((f) => typeof f)).toEqual(Array(5).fill("function"));
});
