// `ls` and `sessions` as a person sees them: on a terminal the rows fit its width (cut with …) and
// the columns line up by terminal columns, CJK and emoji included; piped, nothing is cut.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { textWidth } from "../../src/text-width.ts";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

const COLS = 60;
const LONG_PREVIEW = `the preview line ${"is long ".repeat(12)}END`;
const NAMES = ["plain-name", "コード 🤖 名前", "👨‍👩‍👧 family ✅"];

/** The command's output in a terminal COLS wide, as the rows it shows. */
async function onTerminal(args: string[]): Promise<string[]> {
  const client = fleet.spawnClient(args, { cols: COLS, rows: 30 });
  expect(await client.proc.exited).toBe(0);
  await client.settled();
  return client
    .screen()
    .split("\n")
    .map((row) => row.trimEnd());
}

/** The terminal column where `text` starts in `row`. */
function columnOf(row: string, text: string): number {
  const at = row.indexOf(text);
  expect(at).toBeGreaterThanOrEqual(0);
  return textWidth(row.slice(0, at));
}

async function startTasks(): Promise<void> {
  for (const name of NAMES) {
    const id = await fleet.run(`echo '${LONG_PREVIEW}'; exec sleep 600`, ["--name", name]);
    await until("the preview", async () => (await fleet.task(id)).preview.endsWith("END"));
  }
}

describe("ls", () => {
  test("on a terminal every row fits its width, the preview cut with …, and CJK and emoji names keep the columns aligned", async () => {
    await startTasks();
    const rows = await onTerminal(["ls"]);
    expect(rows[0]).toStartWith("ID");
    const tasks = rows.slice(1, 1 + NAMES.length);
    for (const row of rows) expect(textWidth(row)).toBeLessThanOrEqual(COLS);
    for (const row of tasks) expect(row).toEndWith("…");
    for (const row of tasks) expect(columnOf(row, "~")).toBe(columnOf(rows[0]!, "DIR"));
    for (const row of tasks) expect(columnOf(row, "active")).toBe(columnOf(rows[0]!, "STATE"));
  });

  test("piped, nothing is cut", async () => {
    await startTasks();
    const out = await fleet.ok(["ls"]);
    expect(out.split("\n").filter((line) => line.includes(LONG_PREVIEW))).toHaveLength(NAMES.length);
  });

  test("ls --json gives each task's waitingSince (when its current wait began; null when it does not wait), and ls says how long it has waited", async () => {
    const asker = await fleet.run("printf 'Proceed? \\a'; exec sleep 600", ["--name", "asker"]);
    const busy = await fleet.run("echo busy; exec sleep 600", ["--name", "busy"]);
    const raised = await fleet.waitForTask(asker, "to wait", (t) => t.attention !== null);
    const rows = JSON.parse(await fleet.ok(["ls", "--json"])) as { id: number; waitingSince: string | null }[];
    expect(rows.find((r) => r.id === asker)!.waitingSince).toBe(raised.attention!.since);
    expect(rows.find((r) => r.id === busy)!.waitingSince).toBeNull();
    expect(Date.parse(raised.attention!.since)).toBeLessThanOrEqual(Date.now());
    const row = (await fleet.ok(["ls"])).split("\n").find((line) => line.includes("asker"));
    expect(row).toMatch(/asked for attention for \d+s/);
  });
});

describe("sessions", () => {
  function writeSessions(): void {
    const dir = join(fleet.sandbox.config, "sessions");
    mkdirSync(dir, { recursive: true });
    const dirs = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`/srv/projects/service-number-${i}`, ["make dev"]]));
    writeFileSync(join(dir, "work.json"), JSON.stringify({ version: 1, name: "work", dirs }));
    writeFileSync(join(dir, "jp.json"), JSON.stringify({ version: 1, name: "日本語 セッション 🚀", dirs }));
  }

  test("on a terminal every row fits its width and the CJK name keeps the columns aligned", async () => {
    writeSessions();
    const rows = await onTerminal(["sessions"]);
    expect(rows[0]).toStartWith("NAME");
    for (const row of rows) expect(textWidth(row)).toBeLessThanOrEqual(COLS);
    const sessions = rows.filter((row) => row.includes("/srv/"));
    expect(sessions).toHaveLength(2);
    for (const row of sessions) expect(row).toEndWith("…");
    for (const row of sessions) expect(columnOf(row, "6 ")).toBe(columnOf(rows[0]!, "TASKS"));
    for (const row of sessions) expect(columnOf(row, "/srv/")).toBe(columnOf(rows[0]!, "DIRECTORIES"));
  });

  test("piped, the directories are not cut", async () => {
    writeSessions();
    const out = await fleet.ok(["sessions"]);
    for (const line of out.trimEnd().split("\n").slice(1)) expect(line).toEndWith("/srv/projects/service-number-5");
  });
});
