// The pure parts of attention: the state machine, the bell scan of a chunked stream, what each
// agent's events say, wait's conditions and the attached notice.
import { describe, expect, test } from "bun:test";
import { claudeSignal } from "../../src/agent-claude.ts";
import { codexSignal } from "../../src/agent-codex.ts";
import { AttachNotice, noticeText } from "../../src/ui-attach-notice.ts";
import {
  type AttentionEvent,
  type AttentionTracker,
  BELL_SETTLE_MS,
  NO_ATTENTION,
  attentionMessage,
  isNewAttention,
  nextAttention,
  promptLine,
} from "../../src/task-attention.ts";
import { check, untilQuiet } from "../../src/cmd-wait.ts";
import type { TaskInfo } from "../../src/wire-protocol.ts";
import { notifyEnv } from "../../src/daemon-notify-command.ts";
import { TerminalScan } from "../../src/text-scan.ts";
import { taskInfo } from "../harness/task-info.ts";

const T0 = Date.parse("2026-01-01T12:00:00Z");
const input = { type: "agent", signal: { kind: "waiting", state: "input", message: null } } as const;
const permission = (message: string) => ({ type: "agent", signal: { kind: "waiting", state: "permission", message } }) as const;

function run(events: [AttentionEvent, number][]): AttentionTracker[] {
  const seen: AttentionTracker[] = [];
  let tracker = NO_ATTENTION;
  for (const [event, at] of events) seen.push((tracker = nextAttention(tracker, event, { wall: T0 + at, mono: at })));
  return seen;
}

describe("the state machine", () => {
  test("a restart policy giving up raises the crash loop, its text the message", () => {
    const states = run([[{ type: "crash-loop", message: "crash loop · 2 restarts in 1s · exit 1" }, 0]]).map((t) => t.attention);
    expect(states).toEqual([{ state: "crash-loop", since: new Date(T0).toISOString(), message: "crash loop · 2 restarts in 1s · exit 1" }]);
  });

  test("working → waiting for input → attended (cleared) → working → waiting", () => {
    const states = run([
      [{ type: "agent", signal: { kind: "working" } }, 0],
      [input, 100],
      [{ type: "attended" }, 200],
      [{ type: "agent", signal: { kind: "working" } }, 300],
      [input, 400],
    ]).map((t) => t.attention);
    expect(states).toEqual([
      null,
      { state: "input", since: new Date(T0 + 100).toISOString(), message: null },
      null,
      null,
      { state: "input", since: new Date(T0 + 400).toISOString(), message: null },
    ]);
  });

  test("the same state again keeps its time and is no new attention; a new state is", () => {
    const [first, again, asked] = run([
      [input, 0],
      [input, 500],
      [permission("Allow Bash?"), 900],
    ]).map((t) => t.attention);
    expect(again).toEqual(first!);
    expect(isNewAttention(first!, again!)).toBe(false);
    expect(asked).toEqual({ state: "permission", since: new Date(T0 + 900).toISOString(), message: "Allow Bash?" });
    expect(isNewAttention(again!, asked!)).toBe(true);
    expect(isNewAttention(null, first!)).toBe(true);
    expect(isNewAttention(first!, null)).toBe(false);
  });

  test("a bell raises attention, but never over the agent's own state", () => {
    expect(run([[{ type: "bell" }, 0]])[0]!.attention).toEqual({ state: "bell", since: new Date(T0).toISOString(), message: null });
    expect(
      run([
        [input, 0],
        [{ type: "bell" }, 10],
      ])[1]!.attention?.state,
    ).toBe("input");
    expect(
      run([
        [{ type: "bell" }, 0],
        [input, 10],
      ])[1]!.attention?.state,
    ).toBe("input");
  });

  test("output lowers a bell only once it has settled, and never an agent's wait", () => {
    const [, redraw, later] = run([
      [{ type: "bell" }, 0],
      [{ type: "output" }, BELL_SETTLE_MS - 1],
      [{ type: "output" }, BELL_SETTLE_MS],
    ]).map((t) => t.attention);
    expect(redraw?.state).toBe("bell");
    expect(later).toBeNull();
    expect(
      run([
        [{ type: "bell" }, 0],
        [{ type: "bell" }, 900],
        [{ type: "output" }, 1500],
      ])[2]!.attention?.state,
    ).toBe("bell");
    expect(
      run([
        [input, 0],
        [{ type: "output" }, 60_000],
      ])[1]!.attention?.state,
    ).toBe("input");
  });

  test("attending, the session's end and the run's end clear every state", () => {
    for (const clear of [{ type: "attended" }, { type: "exited" }, { type: "agent", signal: { kind: "ended" } }] as AttentionEvent[]) {
      expect(
        run([
          [permission("x"), 0],
          [clear, 1],
        ])[1]!.attention,
      ).toBeNull();
      expect(
        run([
          [{ type: "bell" }, 0],
          [clear, 1],
        ])[1]!.attention,
      ).toBeNull();
    }
  });

  test("messages are one printable line, capped", () => {
    expect(attentionMessage("Claude needs\nyour\tpermission \x1b[31m")).toBe("Claude needs your permission [31m");
    expect(attentionMessage("  ")).toBeNull();
    expect(attentionMessage(42)).toBeNull();
    expect([...attentionMessage("x".repeat(500))!]).toHaveLength(200);
  });
});

describe("the bell scan", () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  const scan = (...chunks: string[]) => {
    const s = new TerminalScan();
    return chunks.map((c) => s.push(bytes(c)));
  };

  test.each([
    ["a plain BEL", ["ready\x07"], [true]],
    ["an OSC title ended by BEL", ["\x1b]0;title\x07done"], [false]],
    ["an OSC title ended by ST, then a BEL", ["\x1b]2;t\x1b\\ring\x07"], [true]],
    ["an OSC title split before its BEL", ["\x1b]0;my ti", "tle\x07after"], [false, false]],
    ["an OSC split right after ESC", ["text\x1b", "]0;t\x07"], [false, false]],
    ["an OSC split right after ESC ]", ["\x1b]", "0;t\x07"], [false, false]],
    ["a BEL after a finished OSC in a later chunk", ["\x1b]0;t\x07", "x\x07"], [false, true]],
    ["a DCS string ended by BEL", ["\x1bPq#0\x07"], [false]],
    ["a BEL inside a CSI sequence still rings", ["\x1b[3\x071m"], [true]],
    ["an OSC aborted by a new escape, then a BEL", ["\x1b]0;t\x1b[m\x07"], [true]],
    ["colours and no BEL", ["\x1b[31mred\x1b[0m"], [false]],
  ] as [string, string[], boolean[]][])("%s", (_name, chunks, expected) => {
    expect(scan(...chunks)).toEqual(expected);
  });

  test("the boundary: not inside a sequence, not inside a character", () => {
    const s = new TerminalScan();
    const at = (chunk: Uint8Array) => {
      s.push(chunk);
      return s.atBoundary;
    };
    expect(at(bytes("plain"))).toBe(true);
    expect(at(bytes("\x1b[3"))).toBe(false);
    expect(at(bytes("1m"))).toBe(true);
    expect(at(bytes("\x1b]0;ti"))).toBe(false);
    expect(at(bytes("tle"))).toBe(false);
    expect(at(bytes("\x07"))).toBe(true);
    const euro = bytes("€");
    expect(at(euro.subarray(0, 1))).toBe(false);
    expect(at(euro.subarray(1, 2))).toBe(false);
    expect(at(euro.subarray(2))).toBe(true);
  });
});

describe("the screen's last prompt line, for a wait the agent gives no reason for", () => {
  test.each([
    [
      "Claude's reply above its input box",
      ["❯ remember the word PINEAPPLE-42", "● FAKE-REPLY ok", "", "╭──────────────╮", "│ >            │"],
      "● FAKE-REPLY ok",
    ],
    ["Claude 2.x: rules around a bare ❯", ["● Done.", "─────────", "❯ "], "● Done."],
    ["a question on the cursor's row", ["copying…", "Overwrite? [y/N]"], "Overwrite? [y/N]"],
    ["text typed into a boxed prompt", ["│ > fix the tests │"], "> fix the tests"],
    ["nothing but chrome", ["", "────", "› "], null],
    ["control characters are dropped", ["rm\x1b[31m -rf\x07"], "rm [31m -rf"],
  ])("%s", (_what, rows, expected) => {
    expect(promptLine(rows)).toBe(expected);
  });
});

describe("what the agents' events say", () => {
  const hook = (fields: object) => JSON.stringify({ session_id: "s", hook_event_name: "Stop", ...fields });
  test.each([
    ["UserPromptSubmit is working", hook({ hook_event_name: "UserPromptSubmit", prompt: "hi" }), { kind: "working" }],
    ["Stop waits for input", hook({}), { kind: "waiting", state: "input", message: null }],
    [
      "Stop carries Claude's last reply as the message",
      hook({ last_assistant_message: "Done: 3 files\nchanged." }),
      { kind: "waiting", state: "input", message: "Done: 3 files changed." },
    ],
    [
      "a permission prompt",
      hook({ hook_event_name: "Notification", notification_type: "permission_prompt", message: "Claude needs your permission to use Bash" }),
      { kind: "waiting", state: "permission", message: "Claude needs your permission to use Bash" },
    ],
    [
      "an older permission notification without a type",
      hook({ hook_event_name: "Notification", message: "Claude needs your permission to use Bash" }),
      { kind: "waiting", state: "permission", message: "Claude needs your permission to use Bash" },
    ],
    [
      "an idle prompt",
      hook({ hook_event_name: "Notification", notification_type: "idle_prompt", message: "Claude is waiting for your input" }),
      { kind: "waiting", state: "input", message: "Claude is waiting for your input" },
    ],
    ["a login notice is nothing", hook({ hook_event_name: "Notification", notification_type: "auth_success", message: "ok" }), null],
    ["SessionEnd ends the wait", hook({ hook_event_name: "SessionEnd", reason: "exit" }), { kind: "ended" }],
    ["SessionStart says nothing", hook({ hook_event_name: "SessionStart" }), null],
    ["half a line says nothing", '{"hook_event_name": "Sto', null],
    [
      "a hostile message is one printable line",
      hook({ hook_event_name: "Notification", notification_type: "permission_prompt", message: "run\n$(rm -rf ~)\x07" }),
      { kind: "waiting", state: "permission", message: "run $(rm -rf ~)" },
    ],
  ])("claude: %s", (_name, line, expected) => {
    expect(claudeSignal(line)).toEqual(expected as never);
  });

  const ID = "019a0000-0000-7000-8000-000000000001";
  const turn = (inputs: string[], extra: object = {}) =>
    JSON.stringify({ type: "agent-turn-complete", "thread-id": ID, "input-messages": inputs, "last-assistant-message": "All done.", ...extra });
  test.each([
    ["a real thread's turn waits for input", turn(["fix it"]), { kind: "waiting", state: "input", message: "All done." }],
    ["the title thread's turn says nothing", turn(["Generate a concise, single-line task title for: fix it"]), null],
    ["a thread ID that is no UUID says nothing", turn(["fix it"], { "thread-id": "$(touch /tmp/x)" }), null],
    ["another payload type says nothing", turn(["fix it"], { type: "approval-requested" }), null],
  ])("codex: %s", (_name, line, expected) => {
    expect(codexSignal(line)).toEqual(expected as never);
  });
});

function task(over: Partial<TaskInfo> = {}): TaskInfo {
  return taskInfo(3, { command: "claude", agent: "claude", pid: 10, startedAt: new Date(T0).toISOString(), ...over });
}
const waiting = { state: "permission", since: new Date(T0).toISOString(), message: "Allow Bash?" } as const;

describe("wait's conditions", () => {
  test("waiting, exit and idle, and what can never come", () => {
    expect(check(task(), "waiting")).toBeNull();
    expect(check(task({ attention: waiting }), "waiting")).toBe("met");
    expect(check(task({ state: "exited", exitCode: 0 }), "waiting")).toEqual({ never: "task 3 exited 0 without waiting" });
    expect(check(task(), "exit")).toBeNull();
    expect(check(task({ state: "exited", exitCode: 1 }), "exit")).toBe("met");
    expect(check(task(), "idle")).toBeNull();
    for (const quiet of [{ idle: true }, { state: "exited" as const }, { attention: waiting }]) expect(check(task(quiet), "idle")).toBe("met");
  });

  test("quiet means the daemon's idle threshold since the last output, or since the start", () => {
    expect(untilQuiet(task(), T0 + 4_000, 10_000)).toBe(6_000);
    expect(untilQuiet(task({ lastOutputAt: new Date(T0 + 5_000).toISOString() }), T0 + 6_000, 10_000)).toBe(9_000);
    // Overdue: the daemon has not said idle yet (its events are coalesced), so ask again shortly.
    expect(untilQuiet(task(), T0 + 60_000, 10_000)).toBe(250);
  });

  test("a threshold from config.toml's idle_seconds is the one wait goes by, not the default 10 s", () => {
    // idle_seconds = 30: at second 12 the next question is due at second 30, not every 250 ms from second 10.
    expect(untilQuiet(task(), T0 + 12_000, 30_000)).toBe(18_000);
    expect(untilQuiet(task(), T0 + 500, 1_000)).toBe(500);
  });

  test("a wall-clock step between the daemon's reading and wait's never stretches the wait beyond the threshold", () => {
    const last = task({ lastOutputAt: new Date(T0 + 5_000).toISOString() });
    // wait's clock stepped back an hour after the daemon stamped the last output.
    expect(untilQuiet(last, T0 + 6_000 - 3_600_000, 10_000)).toBe(10_000);
  });
});

describe("FLEETCOM_NOTIFY's environment", () => {
  test("the task, its label, the state and the message (empty when there is none)", () => {
    expect(notifyEnv({ taskId: 3, label: "api", attention: waiting })).toEqual({
      FLEETCOM_TASK_ID: "3",
      FLEETCOM_TASK_LABEL: "api",
      FLEETCOM_ATTENTION: "permission",
      FLEETCOM_MESSAGE: "Allow Bash?",
    });
    expect(notifyEnv({ taskId: 3, label: "api", attention: { ...waiting, state: "bell", message: null } }).FLEETCOM_MESSAGE).toBe("");
  });
});

describe("the notice while attached", () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  function notice() {
    const written: string[] = [];
    const n = new AttachNotice((b) => written.push(b));
    return { n, written };
  }

  test("another task starting to wait sets the title once; the attached task and old waits are no news", () => {
    const { n, written } = notice();
    n.attached(1, [task({ id: 2, attention: waiting })]);
    n.taskChanged(task({ id: 1, attention: waiting }));
    n.taskChanged(task({ id: 2, attention: waiting }));
    expect(written).toEqual([]);
    n.taskChanged(task({ id: 3, name: "api", attention: waiting }));
    n.taskChanged(task({ id: 3, name: "api", attention: waiting }));
    expect(written).toEqual(["\x1b[22;0t\x1b]2;fleetcom ! task 3 api waits for permission: Allow Bash?\x07"]);
  });

  test("the title goes back when no other task waits, and on leaving", () => {
    const { n, written } = notice();
    n.attached(1, []);
    n.taskChanged(task({ id: 3, attention: waiting }));
    n.taskChanged(task({ id: 3, attention: null }));
    expect(written.at(-1)).toBe("\x1b[23;0t");
    expect(n.end()).toBe("");
    n.taskChanged(task({ id: 4, attention: { ...waiting, state: "bell", message: null } }));
    expect(n.end()).toBe("\x1b[23;0t");
  });

  test("nothing is written inside an escape sequence or a character: it waits for the boundary", () => {
    const { n, written } = notice();
    n.attached(1, []);
    n.output(bytes("\x1b[3"));
    n.taskChanged(task({ id: 3, attention: waiting }));
    expect(written).toEqual([]);
    n.output(bytes("1mred"));
    expect(written).toHaveLength(1);
  });

  test("the text is one line, control characters shown, cut to fit a title", () => {
    const text = noticeText(task({ name: "evil\x1b]2;pwned\x07", attention: waiting }), { ...waiting, message: "x".repeat(300) });
    expect(text).not.toMatch(/[\x00-\x1f]/);
    expect([...text].length).toBeLessThanOrEqual(120);
  });
});
