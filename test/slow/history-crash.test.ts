// The crash suite for kept history (issue 18): tasks print without pause while the daemon writes
// their history every 20 ms, and the daemon is SIGKILLed at random moments. Every time, each history
// file on disk is whole (it unpacks and reads as a history file), `recover --latest` succeeds, and
// each recovered task shows its old lines above the marker. One round tears a file by hand, as a
// disk that lied would: that task starts without its history, the others with theirs, and recovery
// is not blocked. A failing seed reproduces with FLEETCOM_CRASH_SEED.
import { afterAll, expect, test } from "bun:test";
import { readdirSync, readFileSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { DaemonStatus, TaskInfo } from "../../src/wire-protocol.ts";
import { decodeHistory } from "../../src/recipe-history.ts";
import { until } from "../harness/fleet.ts";
import { seededRandom } from "../harness/helpers.ts";
import { killProcessGroups, processesWithMarker, recoveryDirOf, snapshotFleet, snapshotNames } from "../harness/recovery-helpers.ts";
import { RawClient } from "../harness/raw-client.ts";

const ROUNDS = Number(process.env.FLEETCOM_CRASH_ROUNDS ?? 8);
const SEED = Number(process.env.FLEETCOM_CRASH_SEED ?? Date.now() % 1_000_000);
const TORN_ROUND = 3;

const fleet = snapshotFleet({ debounceMs: 40 });
fleet.env.FLEETCOM_HISTORY_INTERVAL_MS = "20";
const mark = `fleetcom-history-crash-${process.pid}-${SEED}`;
fleet.env.FLEETCOM_CRASH_MARK = mark;
const marker = `FLEETCOM_CRASH_MARK=${mark}`;
const random = seededRandom(SEED);
/** The file the test tore itself: not the daemon's doing, so not checked. */
const tornByHand = new Set<string>();

afterAll(async () => {
  killProcessGroups(processesWithMarker(marker));
  await fleet.stop();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Every history file on disk, checked whole: path → its lines. */
function historyFiles(): Map<string, string[]> {
  const dir = recoveryDirOf(fleet);
  const found = new Map<string, string[]>();
  for (const sub of readdirSync(dir).filter((n) => n.endsWith(".history"))) {
    for (const name of readdirSync(join(dir, sub)).filter((n) => n.endsWith(".txt.gz"))) {
      const file = join(dir, sub, name);
      if (tornByHand.has(file)) continue;
      const decoded = decodeHistory(gunzipSync(readFileSync(file)).toString("utf8"));
      expect({ file, whole: decoded !== null }).toEqual({ file, whole: true });
      found.set(file, decoded!.lines);
    }
  }
  return found;
}

/** The newest snapshot and the history directory beside it. */
function newestSnapshot(): { file: string; historyDir: string } {
  const dir = recoveryDirOf(fleet);
  const names = snapshotNames(fleet).sort((a, b) => readFileSyncMtime(join(dir, b)) - readFileSyncMtime(join(dir, a)));
  const file = join(dir, names[0]!);
  return { file, historyDir: file.replace(/\.json$/, ".history") };
}

function readFileSyncMtime(file: string): number {
  return Bun.file(file).lastModified;
}

async function historyWrites(client: RawClient): Promise<number> {
  const reply = await client.request("status");
  return reply.ok ? (reply.result as DaemonStatus).history.writes : 0;
}

test(`${ROUNDS} rounds of SIGKILL while history is being written never leave a torn file or block recovery (seed ${SEED})`, async () => {
  for (const name of ["a", "b", "c"]) {
    // Slow enough that the marker is still within the 2,000 lines of history when the test looks.
    await fleet.run(`i=0; while :; do seq -f "${name} %g" $i $((i+4)); i=$((i+5)); sleep 0.02; done`, ["--name", name]);
  }
  for (let round = 1; round <= ROUNDS; round++) {
    const pid = fleet.daemonPid()!;
    const client = await RawClient.open(fleet);
    // Writes are under way (a few passes of all three tasks), then the kill lands at a random moment.
    const before = await historyWrites(client);
    await until(`history writes (round ${round})`, async () => (await historyWrites(client)) >= before + 6, 20_000);
    await Bun.sleep(random() * 60);
    process.kill(pid, "SIGKILL");
    client.close();
    await until(`daemon ${pid} to die (round ${round})`, () => !alive(pid), 10_000);
    await until(`round ${round}'s tasks to die with their PTYs`, () => processesWithMarker(marker).length === 0, 10_000);

    historyFiles();
    const { file, historyDir } = newestSnapshot();
    const entries = JSON.parse(readFileSync(file, "utf8")).dirs;
    const keys: string[] = Object.values(entries)
      .flat()
      .map((e) => (e as { history: string }).history);
    let torn: string | null = null;
    if (round === TORN_ROUND) {
      torn = join(historyDir, `${keys[0]}.txt.gz`);
      truncateSync(torn, Math.floor(readFileSync(torn).length / 2));
      tornByHand.add(torn);
    }

    const r = await fleet.cli(["recover", "--latest"]);
    expect({ round, code: r.code, stderr: r.stderr }).toEqual({ round, code: 0, stderr: "" });
    const tasks: TaskInfo[] = await fleet.ls();
    expect({ round, names: tasks.map((t) => t.name).sort() }).toEqual({ round, names: ["a", "b", "c"] });
    for (const task of tasks) {
      const history = (await fleet.cli(["peek", String(task.id), "-H"])).stdout;
      const restored = history.includes("── restored from before ");
      // Loaded in the snapshot's order, so the torn file's task is the first one started.
      const wasTorn = torn !== null && task.id === Math.min(...tasks.map((t) => t.id));
      expect({ round, task: task.name, restored }).toEqual({ round, task: task.name, restored: !wasTorn });
    }
    if (torn) expect(readFileSync(join(fleet.sandbox.runtime, "daemon.log"), "utf8")).toContain(`history not restored from ${torn}: unreadable`);
    const newDaemon = fleet.daemonPid()!;
    await until(`daemon ${newDaemon}'s snapshot (round ${round})`, () => snapshotNames(fleet).some((n) => n.endsWith(`-${newDaemon}.json`)), 10_000);
  }
}, 170_000);
