// A finished task's screen (issue 11, L12): the emulator is disposed once the last byte is parsed,
// and everything read from the screen afterwards (peek text, attach replay, preview, resize on
// attach) is what the live emulator would have answered.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentNamespace } from "../../src/agent-namespace.ts";
import { Screen, type FinishedState } from "../../src/term-screen.ts";
import { FinishedScreen } from "../../src/term-screen-finished.ts";
import { Task, type TaskListener } from "../../src/daemon-task.ts";
import { until } from "../harness/fleet.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const CSI = "\x1b[";
/** Colours, scrollback, a wrapped line, the cursor mid-screen: what a finished task typically leaves. */
const HISTORY =
  Array.from({ length: 300 }, (_, i) => `${CSI}3${i % 8}mline ${i}${CSI}0m ${"#".repeat(i % 50)}\r\n`).join("") +
  `日本語 ✓ 🙂 wide and astral\r\n${"w".repeat(130)}\r\n${CSI}1;4mlast words${CSI}0m\r\n   ${CSI}5;10H`;

function liveScreen(data: string, cols = 80, rows = 24): Screen {
  const screen = new Screen({ cols, rows, scrollback: 2000 });
  cleanups.push(() => screen.dispose());
  screen.write(data);
  return screen;
}

/** Finishes `screen` the way a task does, noting whether the emulator was disposed. */
async function finished(screen: Screen): Promise<{ done: FinishedScreen; disposed: () => boolean }> {
  let disposed = false;
  const dispose = screen.dispose.bind(screen);
  screen.dispose = () => {
    disposed = true;
    dispose();
  };
  const state = await new Promise<FinishedState>((resolve) => screen.finish(resolve));
  return { done: new FinishedScreen(state), disposed: () => disposed };
}

describe("a finished screen", () => {
  test("answers peek, preview and attach exactly as the live emulator did, which is then disposed", async () => {
    const live = liveScreen(HISTORY);
    await live.flushed();
    const before = {
      text: live.text(),
      last40: live.text(40),
      all: live.text(100_000),
      preview: live.previewLine(),
      attach: live.serializeForAttach(),
      logical: live.logicalLines(),
    };
    const { done, disposed } = await finished(live);
    await until("the emulator disposed", () => disposed());
    expect(done.text()).toBe(before.text);
    expect(done.text(40)).toBe(before.last40);
    expect(done.text(100_000)).toBe(before.all);
    expect(done.previewLine()).toBe(before.preview);
    expect(done.previewLine()).toBe("last words");
    expect(await done.snapshotForAttach()).toBe(before.attach);
    expect(await done.textAtCurrentPoint(40)).toBe(before.last40);
    expect(done.logicalLines()).toEqual(before.logical);
  });

  test("takes every byte written before it finished, and reads queued on the emulator meanwhile still answer", async () => {
    const live = liveScreen("");
    live.write("first\r\n");
    const queued = live.textAtCurrentPoint();
    const state = new Promise<FinishedState>((resolve) => live.finish(resolve));
    const after = live.textAtCurrentPoint();
    expect(await queued).toBe("first");
    expect(new FinishedScreen(await state).text()).toBe("first");
    expect(await after).toBe("first");
  });

  test("keeps a few hundred KB for a full scrollback: its text, that text again to replay, and little else", async () => {
    // 3 MB of 76-column lines (what the L12 flood prints): the emulator keeps the last 2,024 rows.
    const line = "0123456789+/".repeat(7).slice(0, 76);
    const live = liveScreen(`${`${line}\r\n`.repeat(40_000)}last line\r\n`);
    const state = await new Promise<FinishedState>((resolve) => live.finish(resolve));
    const kept = [state.attach, state.whole, state.text, state.rowEnds, state.wrapped].reduce((sum, bytes) => sum + bytes.byteLength, 0);
    expect(state.rowEnds.length).toBe(2000 + 24);
    expect(state.text.byteLength).toBeGreaterThan(2000 * 77);
    expect(kept).toBeLessThan(2.5 * state.text.byteLength);
    expect(kept).toBeLessThan(400 * 1024);
  });

  test("resized for an attach from another terminal, reflows as the live emulator would have", async () => {
    const reference = liveScreen(HISTORY);
    await reference.flushed();
    reference.resize(50, 12);
    const { done } = await finished(liveScreen(HISTORY));
    done.resize(50, 12);
    expect(await done.snapshotForAttach()).toBe(await reference.snapshotForAttach());
    expect(await done.textAtCurrentPoint()).toBe(await reference.textAtCurrentPoint());
    expect(done.previewLine()).toBe(reference.previewLine());
  });
});

describe("a task that exits", () => {
  test("swaps its emulator for the finished screen, and what it printed is still there", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fleetcom-finished-"));
    const agents = new AgentNamespace(dir);
    cleanups.push(() => {
      agents.dispose();
      rmSync(dir, { recursive: true, force: true });
    });
    let exited = false;
    const listener: TaskListener = { output() {}, reply() {}, exited: () => void (exited = true), inputDrained() {}, attention() {} };
    const spec = {
      id: 1,
      command: "printf 'hello\\nworld\\n'",
      typed: "printf 'hello\\nworld\\n'",
      worktree: null,
      cwd: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      name: null,
      group: null,
      cols: 80,
      rows: 24,
      scrollback: 2000,
      agents,
      probe: { flagsOf: () => null },
      log() {},
    };
    const task = new Task(spec, listener);
    cleanups.push(() => task.dispose());
    expect(task.screen).toBeInstanceOf(Screen);
    await until("the task to exit", () => exited);
    await until("the finished screen in place", () => task.screen instanceof FinishedScreen);
    expect(task.screen.text()).toBe("hello\nworld");
    expect(task.info().preview).toBe("world");
  });
});
