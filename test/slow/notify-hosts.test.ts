// Every host's waits, pushed from here (docs/notify.md): the local daemon links to an added host (a
// real sshd and a second Unix user, test/harness/sshd.ts) and pushes its task's wait through the
// local destinations, once, named by host.
import { afterAll, beforeAll, expect } from "bun:test";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { remoteTest, type SshServer, sshdAvailable, startSshServer } from "../harness/sshd.ts";
import { sharingPack } from "../harness/packs.ts";

const canRun = sshdAvailable() && process.env.FLEETCOM_TEST_BIN !== undefined;

let server: SshServer;
let fleet: Fleet;
let env: Record<string, string>;
let hookServer: ReturnType<typeof Bun.serve>;
const posts: { path: string; body: string }[] = [];

beforeAll(async () => {
  if (!canRun) return;
  fleet = new Fleet();
  server = await startSshServer(join(fleet.sandbox.root, "ssh"), fleet.sandbox.home);
  hookServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      posts.push({ path: new URL(request.url).pathname, body: await request.text() });
      return new Response("ok");
    },
  });
  env = {
    ...fleet.env,
    FLEETCOM_SSH: `ssh -F ${server.config}`,
    FLEETCOM_HOST_TIMEOUT_MS: "60000",
    // Every transition at once, and a host without tasks asked again soon: the test cannot wait a minute.
    FLEETCOM_PUSH_INTERVAL_MS: "0",
    FLEETCOM_HOST_RECHECK_MS: "300",
  };
}, 60_000);

afterAll(async () => {
  if (!canRun) return;
  await cli(["--host", "remote1", "--kill", "--yes"]);
  await cli(["--kill", "--yes"]);
  hookServer.stop(true);
  await fleet.stop();
  await server.stop();
});

// fleetcom in the sandbox with the host's ssh settings (`env`).
const cli = (args: string[]) => fleet.cli(args, { env });
const ok = (args: string[]) => fleet.ok(args, { env });

remoteTest(
  "a host's waiting task reaches this machine's webhook once, named by its host",
  async () => {
    mkdirSync(fleet.sandbox.config, { recursive: true });
    writeFileSync(join(fleet.sandbox.config, "config.toml"), `notify = "http://127.0.0.1:${hookServer.port}/hook"\n`);
    // This machine's daemon first: a host added later is linked at the next reload.
    await ok(["ls"]);
    await sharingPack(fleet.sandbox.home, () => ok(["hosts", "add", "remote1"]));
    await ok(["config", "--reload"]);
    const waiting = Number((await ok(["--host", "remote1", "run", "--name", "claude", "--", "printf '\\a'; sleep 3600"])).trim());
    await until("the host's wait at the webhook", () => posts.length >= 1, 60_000);
    const first = JSON.parse(posts[0]!.body);
    expect(first).toMatchObject({ host: "remote1", task: { id: waiting, name: `remote1:${waiting} claude` }, state: "input" });
    // A second wait there, after the first: its push is the mark that the first was not sent again.
    const later = Number((await ok(["--host", "remote1", "run", "--name", "later", "--", "sleep 0.5; printf '\\a'; sleep 3600"])).trim());
    await until("the second wait", () => posts.some((p) => JSON.parse(p.body).task.id === later), 60_000);
    expect(posts.map((p) => JSON.parse(p.body).task.name)).toEqual([`remote1:${waiting} claude`, `remote1:${later} later`]);
  },
  180_000,
);

remoteTest(
  "a wait that begins while the link is down is pushed once when it comes back",
  async () => {
    // By the name a push gives: this machine's ids and the host's overlap.
    const told = (id: number) => posts.filter((p) => JSON.parse(p.body).task.name.startsWith(`remote1:${id} `)).length;
    // Where the remote user can see it: the sandbox is this user's alone.
    const shared = mkdtempSync(join(tmpdir(), "fleetcom-flag-"));
    chmodSync(shared, 0o755);
    const flag = join(shared, "go");
    const marker = Number((await ok(["--host", "remote1", "run", "--name", "marker", "--", "printf '\\a'; sleep 3600"])).trim());
    const waiter = Number(
      (await ok(["--host", "remote1", "run", "--name", "waiter", "--", `while [ ! -e '${flag}' ]; do sleep 0.1; done; printf '\\a'; sleep 3600`])).trim(),
    );
    // The link is up and has heard of both tasks once the marker's wait arrives.
    await until("the marker's push", () => told(marker) === 1, 60_000);
    // Down: remote1 now points at a closed port, and the shared ssh connection the link rides is ended.
    const config = readFileSync(server.config, "utf8");
    const working = join(fleet.sandbox.root, "ssh-config-working");
    writeFileSync(working, config);
    writeFileSync(
      server.config,
      config.replace(/Host remote1\n([\s\S]*?)Port \d+/, (_all, between) => `Host remote1\n${between}Port ${refusedPort(config)}`),
    );
    Bun.spawnSync(["ssh", "-F", working, "-o", `ControlPath=${fleet.sandbox.runtime}/ssh-%C`, "-O", "exit", "remote1"]);
    for (const pid of server.userPids()) if (/bridge|sshd/.test(cmdline(pid))) tryKill(pid);
    const log = join(fleet.sandbox.runtime, "daemon.log");
    await until("the link's drop in daemon.log", () => readFileSync(log, "utf8").includes("host remote1: the link for its pushes dropped"), 60_000);
    // The wait begins while the link is down; remote1's own fleet says so.
    writeFileSync(flag, "");
    const viaWorking = { ...env, FLEETCOM_SSH: `ssh -F ${working}` };
    let lastError = "";
    await until("the wait there", async () => {
      const proc = Bun.spawn(fleetcomArgv(["--host", "remote1", "ls", "--json"]), { env: viaWorking, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
      const [text, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
      if ((await proc.exited) !== 0) lastError = stderr;
      return proc.exitCode === 0 && JSON.parse(text).some((t: { id: number; attention: unknown }) => t.id === waiter && t.attention !== null);
    }).catch((error) => {
      writeFileSync(server.config, config);
      throw new Error(`${error.message}; the last ls there said: ${lastError}`);
    });
    expect(told(waiter)).toBe(0);
    // Back up: the link is made again, and the wait that began meanwhile is told, once.
    writeFileSync(server.config, config);
    await until("the wait told after the link came back", () => told(waiter) === 1, 60_000);
    const after = Number((await ok(["--host", "remote1", "run", "--name", "after", "--", "printf '\\a'; sleep 3600"])).trim());
    await until("a later wait's push", () => told(after) === 1, 60_000);
    expect([told(marker), told(waiter)]).toEqual([1, 1]);
    rmSync(shared, { recursive: true, force: true });
  },
  180_000,
);

/**
 * Ends the connections the daemon's link rides (the shared ssh connection, the host's side of it),
 * and returns once the link has dropped and the host answers again.
 */
async function relink(): Promise<void> {
  const log = join(fleet.sandbox.runtime, "daemon.log");
  const drops = () => readFileSync(log, "utf8").split("the link for its pushes dropped").length;
  const before = drops();
  Bun.spawnSync(["ssh", "-F", server.config, "-o", `ControlPath=${fleet.sandbox.runtime}/ssh-%C`, "-O", "exit", "remote1"]);
  for (const pid of server.userPids()) if (/bridge|sshd/.test(cmdline(pid))) tryKill(pid);
  await until("the link to drop", () => drops() > before, 60_000);
  await until("the host to answer again", async () => (await cli(["--host", "remote1", "ls"])).code === 0, 60_000);
}

function refusedPort(config: string): string {
  return /Host refused\n[\s\S]*?Port (\d+)/.exec(config)![1]!;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

function tryKill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {}
}

remoteTest(
  "a host with notify destinations of its own pushes its waits itself: this machine does not push them again",
  async () => {
    // By name: this machine's ids and the host's overlap.
    const at = (path: string, name: string) => posts.filter((p) => p.path === path && JSON.parse(p.body).task.name === name).length;
    const dir = join(server.home, ".config", "fleetcom");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "config.toml"), `notify = "http://127.0.0.1:${hookServer.port}/remote"\n`);
    for (const path of [join(server.home, ".config"), dir, join(dir, "config.toml")]) chownSync(path, server.uid, server.uid);
    // The host's daemon reads its file again on SIGHUP (`config --reload` is this machine's only).
    process.kill(Number(readFileSync(`/tmp/fleetcom-${server.uid}/daemon.lock`, "utf8").trim()), "SIGHUP");
    await until("the host's daemon to take its notify", async () => {
      const status = JSON.parse(await ok(["--host", "remote1", "status", "--json"]));
      return status.push.length === 1;
    });
    // The link asks again when it is made again.
    await relink();
    const log = join(fleet.sandbox.runtime, "daemon.log");
    await until("the link made again, knowing", () => readFileSync(log, "utf8").includes("host remote1 has notify destinations of its own"), 60_000);
    const own = Number((await ok(["--host", "remote1", "run", "--name", "own", "--", "printf '\\a'; sleep 3600"])).trim());
    await until("the host's own push", () => at("/remote", "own") === 1, 60_000);
    // A wait here after it: its push is the mark that this machine had its turn with the host's.
    await ok(["run", "--name", "here", "--", "printf '\\a'; sleep 3600"]);
    await until("this machine's push", () => at("/hook", "here") === 1, 60_000);
    expect(at("/hook", `remote1:${own} own`)).toBe(0);
  },
  180_000,
);

remoteTest(
  "fleetcom --host notify off mutes a host's task for this machine's pushes",
  async () => {
    // By the name a push gives: this machine's ids and the host's overlap.
    const at = (id: number) => posts.filter((p) => JSON.parse(p.body).task.name.startsWith(`remote1:${id} `)).length;
    // The host's own notify is gone again, and the link made again to learn it.
    writeFileSync(join(server.home, ".config", "fleetcom", "config.toml"), "");
    process.kill(Number(readFileSync(`/tmp/fleetcom-${server.uid}/daemon.lock`, "utf8").trim()), "SIGHUP");
    await until("the host's daemon to have no notify", async () => JSON.parse(await ok(["--host", "remote1", "status", "--json"])).push.length === 0);
    await relink();
    const before = posts.length;
    // A reload keeps the link and what it told: the waits told before are not pushed again.
    await ok(["config", "--reload"]);
    const muted = Number((await ok(["--host", "remote1", "run", "--name", "muted", "--", "read go; printf '\\a'; sleep 3600"])).trim());
    expect(await ok(["--host", "remote1", "notify", "off", String(muted)])).toBe(`notify off: ${muted}\n`);
    await ok(["--host", "remote1", "send", String(muted), "go"]);
    const marker = Number((await ok(["--host", "remote1", "run", "--name", "marker2", "--", "sleep 0.5; printf '\\a'; sleep 3600"])).trim());
    await until("the marker's push from here", () => at(marker) === 1, 60_000);
    expect(at(muted)).toBe(0);
    expect(posts.length).toBe(before + 1);
  },
  180_000,
);
