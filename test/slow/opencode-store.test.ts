// opencode's SQLite database (src/agent-opencode.ts) as the daemon reads it at a save, through the
// real binary: a FIFO swapped in for the database never holds the daemon, and a read writes nothing
// in opencode's directory. The task's `opencode` is a sleeping script: only the daemon opens the file.
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, expect, test } from "bun:test";
import { chmodSync, closeSync, constants, mkdirSync, openSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Fleet, until } from "../harness/fleet.ts";

let fleet: Fleet;
let dataDir: string;
let database: string;

beforeEach(() => {
  fleet = new Fleet();
  const bin = join(fleet.sandbox.root, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "opencode"), "#!/bin/sh\necho opencode sleeping\nexec sleep 3600\n");
  chmodSync(join(bin, "opencode"), 0o755);
  fleet.env.PATH = `${bin}:${fleet.env.PATH}`;
  fleet.env.FLEETCOM_AGENT_PROBE_MS = "30000";
  dataDir = join(fleet.sandbox.home, ".local", "share", "opencode");
  database = join(dataDir, "opencode.db");
  mkdirSync(dataDir, { recursive: true });
});
afterEach(() => fleet.stop());

/** opencode's database in WAL mode as it leaves it when it closes: no -wal or -shm beside it. */
function makeDatabase(rows: { id: string; directory: string; created: number }[]): void {
  const db = new Database(database);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT, title TEXT, time_created INTEGER)");
  for (const r of rows) db.query("INSERT INTO session VALUES (?, NULL, ?, 't', ?)").run(r.id, r.directory, r.created);
  db.close();
}

async function startOpencode(): Promise<number> {
  const id = await fleet.run("opencode");
  await until("opencode to start", async () => (await fleet.peek(id)).includes("opencode sleeping"));
  return id;
}

/** `promise`, or null when it has not settled within `ms`: a frozen daemon shows as null, not as a hung test. */
function within<T>(ms: number, promise: Promise<T>): Promise<T | null> {
  return Promise.race([promise, Bun.sleep(ms).then(() => null)]);
}

// SECURITY (docs/security.md): anything of the user's can rename files in opencode's directory.
test("a FIFO swapped in and out for the database while saves read it never holds the daemon", async () => {
  makeDatabase([]);
  await startOpencode();
  // swap.py of the field report: the database, a regular copy and a FIFO renamed in turn, without end.
  const swapper = Bun.spawn(
    [
      "python3",
      "-c",
      `import os, shutil
d = ${JSON.stringify(dataDir)}
db, reg, fifo = d + "/opencode.db", d + "/reg.tmp", d + "/fifo.tmp"
os.rename(db, reg); os.mkfifo(fifo)
print("swapping", flush=True)
while True:
    os.rename(reg, db); os.rename(db, reg)
    os.rename(fifo, db); os.rename(db, fifo)`,
    ],
    { stdout: "pipe", stderr: "inherit" },
  );
  try {
    const { value } = await swapper.stdout.getReader().read();
    expect(new TextDecoder().decode(value)).toContain("swapping");
    // Each save reads the database (no session matches, so nothing sticks); 40 of them, then ls.
    const answered = await within(
      30_000,
      (async () => {
        for (let i = 0; i < 40; i++) await fleet.ok(["save", `race${i}`]);
        return fleet.ok(["ls"]);
      })(),
    );
    expect(answered).not.toBeNull();
    expect(answered).toContain("opencode");
  } finally {
    swapper.kill();
    await swapper.exited;
    // A daemon caught in the FIFO's open is let go, so the fleet can stop.
    for (const name of readdirSync(dataDir)) {
      try {
        closeSync(openSync(join(dataDir, name), constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {}
    }
  }
});

test("a save finds the session in the database and writes nothing beside it (no -wal, no -shm)", async () => {
  const spawnedAt = Date.now();
  await startOpencode();
  const session = "ses_0123456789abcdefABCDEFGHIJ";
  makeDatabase([{ id: session, directory: fleet.sandbox.home, created: spawnedAt + 1000 }]);
  expect(readdirSync(dataDir)).toEqual(["opencode.db"]);
  expect(await fleet.savedCommands("found")).toEqual([`opencode -s '${session}'`]);
  expect(readdirSync(dataDir)).toEqual(["opencode.db"]);
});
