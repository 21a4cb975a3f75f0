// dashboard-scale: how long the dashboard takes to show a change with 2,000 tasks.
//
// scale-dashboard-redraw-2000: a daemon with 2,000 `sleep 3600` tasks (one `load`), the dashboard in
// a real PTY (120x40) with the task under its cursor on screen, 5 s after its first frame. One change
// at a time, the bench renames that task over its own connection to the daemon and times, from the
// request's send, until the new name arrives in the dashboard's PTY: the daemon's event, the
// dashboard's whole redraw (its model, the sections, the rows, the frame written). Measured from
// outside, so the figure is what a person sees and nothing in the product is there for the bench.
// The median of 30 (and the p95) against 16 ms, a 60 Hz display's frame (ratio ≤ 1 meets it).
// Beside it, scale-dashboard-redraw-10: the same with 10 tasks, what the hops cost when there is
// little to draw; scale-dashboard-rename-reply-2000 (median, p95): the rename's reply to the bench,
// the daemon's share of the same wait.
import type { DaemonClient } from "../src/client.ts";
import { makeSandbox, median, onCleanup, openDaemonClient, percentile, poll, PtyClient, reportLine, sleep, versusLine, writeSameFleet } from "./common.ts";

const FRAME_BUDGET_MS = 16;
const CHANGES = 30;
const SETTLE_MS = 5_000;

export async function run(): Promise<string[]> {
  const large = await changeToFrame(2_000);
  const small = await changeToFrame(10);
  return [
    versusLine("scale-dashboard-redraw-2000", median(large.frames), "budget", FRAME_BUDGET_MS),
    versusLine("scale-dashboard-redraw-2000-p95", percentile(large.frames, 95), "budget", FRAME_BUDGET_MS),
    reportLine("scale-dashboard-rename-reply-2000", median(large.replies)),
    reportLine("scale-dashboard-rename-reply-2000-p95", percentile(large.replies, 95)),
    versusLine("scale-dashboard-redraw-10", median(small.frames), "budget", FRAME_BUDGET_MS),
  ];
}

/** A frame ends by closing its synchronized update. */
const FRAME_END = "\x1b[?2026l";

/** The id of the task under the cursor (`›`) in the last frame drawn: a task the screen shows. */
function rowUnderCursor(drawn: string): number {
  const frame = drawn.slice(drawn.lastIndexOf("\x1b[?2026h"));
  const id = frame.slice(frame.indexOf("›")).match(/\x1b\[2m *(\d+)\x1b\[22m/)?.[1];
  if (id === undefined) throw new Error("no task under the dashboard's cursor");
  return Number(id);
}

/** From each of CHANGES renames of the task under the cursor to the dashboard's PTY showing the new name, with `tasks` tasks. */
async function changeToFrame(tasks: number): Promise<{ frames: number[]; replies: number[] }> {
  const sandbox = makeSandbox(`dashboard-${tasks}`);
  const { root, env, fleetcom } = sandbox;
  const { recipe } = writeSameFleet(root, "many", tasks, "sleep 3600");
  await fleetcom.run("load", recipe);
  const dashboard = new PtyClient(fleetcom.argv(), env);
  let drawn = "";
  dashboard.onChunk((chunk) => void (drawn += new TextDecoder().decode(chunk)));
  await dashboard.waitFor(`${tasks} tasks`, 120_000);
  // The start's own work (every task's first events and figures) is over before the changes.
  await sleep(SETTLE_MS);
  await poll(() => drawn.endsWith(FRAME_END), "the first frame's end", 60_000, 5);
  dashboard.onChunk(null);
  const shown = rowUnderCursor(drawn);
  const client: DaemonClient = await openDaemonClient(sandbox);
  onCleanup(() => client.close());
  const samples: number[] = [];
  const replies: number[] = [];
  for (let i = 1; i <= CHANGES; i++) {
    const name = `renamed-${i}-`;
    const drawnName = dashboard.waitFor(name, 60_000);
    const sent = performance.now();
    await client.request("rename", { task: { id: shown }, name });
    replies.push(performance.now() - sent);
    samples.push((await drawnName) - sent);
  }
  return { frames: samples, replies };
}
