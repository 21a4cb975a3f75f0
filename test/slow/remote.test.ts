// One fleet across machines, over a real OpenSSH server (docs/remote.md). The test starts sshd on
// 127.0.0.1 on a free port, with a host key and a user key made in its sandbox, and makes a second
// local Unix user as the "remote" (its own home, runtime directory and daemon), removed at the end
// whatever happened. The client side is the real binary with its own sandbox HOME, whose ssh config
// (Host aliases, the key, known_hosts) it reaches through FLEETCOM_SSH="ssh -F …" (ssh reads the
// passwd home, not $HOME).
//
// It needs root (useradd) and /usr/sbin/sshd. Without them it is skipped, except under CI (CI=true),
// where it fails: .ci/run installs openssh-server, so a skip there would hide a broken transport.
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { Fleet, PtyClient, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { remoteTest, type SshServer, sshdAvailable, startSshServer } from "../harness/sshd.ts";
import { shellWords, Tmux } from "../harness/tmux.ts";
import { FrameDecoder, FrameKind, MAX_DAEMON_FRAME, PROTOCOL_VERSION, decodeJson, encodeControl } from "../../src/wire-framing.ts";
import { VERSION } from "../../src/version.ts";
import type { TaskInfo } from "../../src/wire-protocol.ts";

const BIN = process.env.FLEETCOM_TEST_BIN;
const canRun = sshdAvailable() && BIN !== undefined;

function sh(argv: string[]): { code: number; stdout: string; stderr: string } {
  const r = Bun.spawnSync(argv, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

function must(argv: string[]): string {
  const r = sh(argv);
  if (r.code !== 0) throw new Error(`${argv.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

let server: SshServer;
let fleet: Fleet;
let env: Record<string, string>;
let user = "";
let remoteHome = "";
let sshConfig = "";
let root = "";

function remoteDaemonPid(): number | null {
  try {
    return Number(readFileSync(`/tmp/fleetcom-${server.uid}/daemon.lock`, "utf8").trim()) || null;
  } catch {
    return null;
  }
}

beforeAll(async () => {
  if (!canRun) return;
  fleet = new Fleet();
  root = join(fleet.sandbox.root, "ssh");
  server = await startSshServer(root, fleet.sandbox.home);
  ({ user, home: remoteHome, config: sshConfig } = server);
  // A host's answer is bounded at 2.5 s; on a loaded machine a cold bridge can take longer, so the
  // tests that need an answer give it a minute, and the test of the bound sets its own.
  env = { ...fleet.env, FLEETCOM_SSH: `ssh -F ${sshConfig}`, FLEETCOM_HOST_TIMEOUT_MS: "60000" };
}, 60_000);

afterAll(async () => {
  if (!canRun) return;
  // The shared connection ends with its master; then the fleets, the server and the remote user.
  sh(["ssh", "-F", sshConfig, "-o", `ControlPath=${fleet.sandbox.runtime}/ssh-%C`, "-O", "exit", "remote1"]);
  await fleet.stop();
  await server.stop();
});

/** Whether something takes a connection on the Unix socket at `path` now. */
function accepts(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** The shared ssh connection's master process (ControlMaster), which every command to remote1 goes through. */
function masterPid(): number {
  const check = sh(["ssh", "-F", sshConfig, "-o", `ControlPath=${fleet.sandbox.runtime}/ssh-%C`, "-O", "check", "remote1"]);
  const pid = Number(/pid=(\d+)/.exec(check.stderr)?.[1]);
  if (!(pid > 0)) throw new Error(`no ssh master for remote1: ${check.stderr}`);
  return pid;
}

/** `hosts add remote1` through an ssh that keeps a copy of what it carries on stdin: its output, and the upload's bytes as they crossed the wire. */
async function hostsAddCounted(name: string): Promise<{ out: string; sent: number }> {
  const wire = join(root, `wire-${name}.bytes`);
  const counting = join(root, `counting-ssh-${name}`);
  writeFileSync(counting, `#!/bin/sh\ntee -a ${wire} | ssh -F ${sshConfig} "$@"\n`);
  chmodSync(counting, 0o755);
  const out = await ok(["hosts", "add", "remote1"], { FLEETCOM_SSH: counting });
  const sent = statSync(wire).size;
  rmSync(wire);
  return { out, sent };
}

// fleetcom in the sandbox with the host's ssh settings (`env`), and `extra` over them.
const cli = (args: string[], extra: Record<string, string> = {}) => fleet.cli(args, { env: { ...env, ...extra } });
const ok = (args: string[], extra: Record<string, string> = {}) => fleet.ok(args, { env: { ...env, ...extra } });

const installed = () => join(remoteHome, ".local/share/fleetcom", VERSION, "fleetcom");

async function remoteTasks(): Promise<(TaskInfo & { host: string | null })[]> {
  return JSON.parse(await ok(["--host", "remote1", "ls", "--json"]));
}

describe("hosts over OpenSSH", () => {
  remoteTest("hosts add refuses an upload cut short on the way, names the host, and leaves the fleetcom there as it was", async () => {
    // A fleetcom already at the path (as a previous, interrupted install would leave one), which the
    // probe does not take for this version.
    const dir = join(remoteHome, ".local/share/fleetcom", VERSION);
    mkdirSync(dir, { recursive: true });
    const before = "#!/bin/sh\necho 0.0.0-before\n";
    writeFileSync(installed(), before, { mode: 0o755 });
    must(["chown", "-R", `${user}:`, join(remoteHome, ".local")]);
    // An ssh that loses all but the first megabyte of what it is given on stdin.
    const lossy = join(root, "lossy-ssh");
    writeFileSync(lossy, `#!/bin/sh\nhead -c 1000000 | exec ssh -F ${sshConfig} "$@"\n`);
    chmodSync(lossy, 0o755);
    const r = await cli(["hosts", "add", "remote1"], { FLEETCOM_SSH: lossy });
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("remote1: install failed: the upload arrived cut short or damaged");
    expect(r.stderr).toContain("the fleetcom there is as it was");
    expect(readFileSync(installed(), "utf8")).toBe(before);
    expect(readdirSync(dir)).toEqual(["fleetcom"]);
    expect(await ok(["hosts", "ls", "--json"])).toBe("[]\n");
  });

  remoteTest("hosts add names ssh's own reason for a host it cannot resolve", async () => {
    const r = await cli(["hosts", "add", "nowhere", "--ssh", "nowhere.invalid"]);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("cannot reach nowhere (nowhere.invalid): ssh: Could not resolve hostname nowhere.invalid");
  });

  remoteTest(
    "hosts add installs this version there, verified, and hosts ls lists it",
    async () => {
      const { out, sent } = await hostsAddCounted("first");
      // Packed: well under the binary's own size (about 0.38 of it with xz, 0.41 with zstd, 0.48 with gzip).
      expect(sent).toBeGreaterThan(0);
      expect(sent).toBeLessThan(statSync(BIN!).size * 0.6);
      // Both sides have xz here (the remote user is this machine's): issue 46's bound on the wire.
      if (Bun.which("xz") !== null) {
        expect(sent).toBeLessThanOrEqual(45_000_000);
        expect(out).toContain("xz-packed");
      }
      expect(out).toContain(`remote1 (remote1): Linux`);
      expect(out).toContain(`installed fleetcom ${VERSION} at ${installed()} (SHA-256 verified there; `);
      expect(out).toMatch(/lingering|logind|service/);
      const sum = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
      expect(sum(installed())).toBe(sum(BIN!));
      // The tests' ssh config sets neither sharing nor ConnectTimeout: fleetcom adds both, as ssh -G said.
      expect(readFileSync(join(fleet.sandbox.config, "config.toml"), "utf8")).toContain('[hosts.remote1]\nssh = "remote1"\nhome = ');
      expect(readFileSync(join(fleet.sandbox.config, "config.toml"), "utf8")).toContain("\nshare = true\ntimeout = true\n");
      expect(await ok(["hosts", "add", "remote1"])).toContain(`fleetcom ${VERSION} already at ${installed()}`);
      const hosts = JSON.parse(await ok(["hosts", "ls", "--json"]));
      expect(hosts).toEqual([{ name: "remote1", ssh: "remote1", version: VERSION, reachable: true, tasks: 0, waiting: 0 }]);
    },
    300_000,
  );

  remoteTest(
    "hosts add to a second host sends the pack kept from the first, and packs again rather than send a kept pack that was damaged",
    async () => {
      // Kept in the sandbox's cache (HOME is a temp directory), one pack and its record for this version.
      const dir = join(fleet.sandbox.home, ".cache/fleetcom/packed", VERSION);
      // The upload cut short in the first test kept nothing.
      const names = readdirSync(dir).sort();
      expect(names).toHaveLength(2);
      const name = names.find((f) => f.endsWith(".xz") || f.endsWith(".zstd") || f.endsWith(".gzip"))!;
      const pack = join(dir, name);
      const record = () => JSON.parse(readFileSync(`${pack}.json`, "utf8")) as { bytes: number; sha256: string };
      const sum = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
      const good = readFileSync(pack);
      expect(record()).toMatchObject({ bytes: good.length, sha256: sum(good) });
      const keptSince = statSync(pack).mtimeMs;
      rmSync(installed());
      expect(await ok(["hosts", "add", "remote1"])).toContain(`installed fleetcom ${VERSION} at ${installed()} (SHA-256 verified there; `);
      expect(statSync(pack).mtimeMs).toBe(keptSince);
      expect(sum(readFileSync(installed()))).toBe(sum(readFileSync(BIN!)));
      // A byte of the kept pack flipped on the disk: packed again, the host given a good stream.
      const damaged = Buffer.from(good);
      damaged[damaged.length >> 1]! ^= 0xff;
      writeFileSync(pack, damaged);
      rmSync(installed());
      expect(await ok(["hosts", "add", "remote1"])).toContain(`installed fleetcom ${VERSION} at ${installed()} (SHA-256 verified there; `);
      expect(sum(readFileSync(installed()))).toBe(sum(readFileSync(BIN!)));
      expect(sum(readFileSync(pack))).toBe(record().sha256);
      expect(readFileSync(pack)).not.toEqual(damaged);
    },
    300_000,
  );

  remoteTest(
    "hosts add at a new version sends only the blocks the fleetcom already there does not have, and verifies the whole",
    async () => {
      // The previous version there: this binary with a few of its blocks changed, as another build's would be.
      const previous = join(remoteHome, ".local/share/fleetcom", "0.0.9-previous", "fleetcom");
      mkdirSync(join(previous, ".."), { recursive: true });
      const bytes = Buffer.from(readFileSync(BIN!));
      for (const at of [100, 5_000_000, 60_000_000, bytes.length - 10]) bytes[at] = bytes[at]! ^ 0xff;
      writeFileSync(previous, bytes, { mode: 0o755 });
      must(["chown", "-R", `${user}:`, join(remoteHome, ".local")]);
      rmSync(installed());
      const { out, sent } = await hostsAddCounted("new-version");
      // Four blocks of a megabyte, packed: a twentieth of the binary at most (the whole, packed, is 0.41 of it).
      expect(sent).toBeLessThan(bytes.length / 20);
      expect(out).toContain(`the rest taken from ${previous} there)`);
      const sum = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
      expect(sum(installed())).toBe(sum(BIN!));
      expect(readdirSync(join(remoteHome, ".local/share/fleetcom")).sort()).toEqual(["0.0.9-previous", VERSION].sort());
      expect(readdirSync(join(remoteHome, ".local/share/fleetcom", VERSION))).toEqual(["fleetcom"]);
      rmSync(join(previous, ".."), { recursive: true });
    },
    300_000,
  );

  remoteTest("run, ls, peek, send and kill reach the remote fleet by --host and HOST:TASK; the local environment stays here but --env travels", async () => {
    const local = Number((await ok(["run", "--name", "here", "--", "cat"])).trim());
    const id = Number((await ok(["--host", "remote1", "run", "--name", "api", "--", "cat"])).trim());
    const probe = Number(
      (
        await ok(
          [
            "--host",
            "remote1",
            "run",
            "--env",
            "GIVEN=by hand",
            "--",
            'echo "home=$HOME user=$(id -un) secret=${LOCAL_SECRET:-unset} given=$GIVEN"; sleep 600',
          ],
          {
            LOCAL_SECRET: "s3cret",
          },
        )
      ).trim(),
    );
    // Local rows first; the remote ones carry their host.
    const all: (TaskInfo & { host: string | null })[] = JSON.parse(await ok(["ls", "--json"]));
    expect(all.map((t) => [t.host, t.name ?? t.typed])).toEqual([
      [null, "here"],
      ["remote1", "api"],
      ["remote1", expect.stringContaining("echo")],
    ]);
    expect(all[0]!.id).toBe(local);
    const table = await ok(["ls"]);
    expect(table.split("\n")[0]).toMatch(/^HOST\s+ID/);
    expect(table).toMatch(/^remote1\s+\d+.*api/m);
    await until("the probe's line", async () => (await ok(["peek", `remote1:${probe}`])).includes("secret="));
    const said = await ok(["peek", `remote1:${probe}`]);
    expect(said).toContain(`home=${remoteHome} user=${user} secret=unset given=by hand`);
    await ok(["send", "remote1:api", "hello there"]);
    await until("the echo on the remote task", async () => (await ok(["peek", "remote1:api"])).includes("hello there"));
    // The local task of the same name is another task: nothing was sent to it.
    expect(await ok(["peek", "here"])).not.toContain("hello there");
    await ok(["kill", `remote1:${id}`]);
    await until("the remote task to exit", async () => (await remoteTasks()).find((t) => t.id === id)?.state === "exited");
    expect((await remoteTasks()).find((t) => t.id === probe)?.state).toBe("running");
    await ok(["--host", "remote1", "kill", String(probe)]);
    await ok(["kill", String(local)]);
  });

  remoteTest("attach to HOST:TASK draws the remote screen, types into it, and detaches with the detach key", async () => {
    const id = Number((await ok(["--host", "remote1", "run", "--name", "pad", "--", "printf 'remote-ready\\n'; exec cat"])).trim());
    const client = new PtyClient(fleetcomArgv(["attach", "remote1:pad"]), env, fleet.sandbox.home, { cols: 80, rows: 24 });
    try {
      await client.waitForScreen("the remote task's screen", (s) => s.includes("remote-ready"));
      await client.waitForRawMode();
      client.write("typed-here\r");
      await client.waitForScreen("the typed line, echoed there", (s) => s.split("\n").filter((l) => l.includes("typed-here")).length === 2);
      client.write("\x1cd");
      expect(await client.proc.exited).toBe(0);
    } finally {
      client.kill();
    }
    expect((await remoteTasks()).find((t) => t.id === id)?.state).toBe("running");
    expect(await ok(["peek", "remote1:pad"])).toContain("typed-here");
    await ok(["kill", "remote1:pad"]);
  });

  remoteTest("the dashboard with --host shows that host's fleet, and q leaves it running", async () => {
    const id = Number((await ok(["--host", "remote1", "run", "--name", "far-away", "--", "cat"])).trim());
    const dashboard = new PtyClient(fleetcomArgv(["--host", "remote1"]), env, fleet.sandbox.home, { cols: 100, rows: 24 });
    try {
      await dashboard.waitForScreen("the remote task's row", (s) => s.includes("far-away"));
      await dashboard.waitForRawMode();
      dashboard.write("q");
      expect(await dashboard.proc.exited).toBe(0);
    } finally {
      dashboard.kill();
    }
    expect((await remoteTasks()).find((t) => t.id === id)?.state).toBe("running");
    await ok(["kill", "remote1:far-away"]);
  });

  remoteTest(
    "the dashboard shows this machine's fleet, then each host's under its heading; a remote wait counts; Enter attaches there, n runs there, a dropped link comes back",
    async () => {
      const local = Number((await ok(["run", "--name", "near-one", "--", "cat"])).trim());
      const far = Number((await ok(["--host", "remote1", "run", "--name", "far-one", "--", "printf 'far-screen\\n'; exec cat"])).trim());
      const bell = Number((await ok(["--host", "remote1", "run", "--name", "far-bell", "--", "printf 'ring\\a'; exec cat"])).trim());
      await until("the remote bell", async () => (await remoteTasks()).find((t) => t.id === bell)?.attention);
      const tmux = new Tmux(env, root);
      let made: number | null = null;
      try {
        tmux.window("dash", shellWords(fleetcomArgv([])), { cols: 120, rows: 40 });
        const screen = await tmux.waitFor("dash", "both fleets", (t) => t.includes("near-one") && t.includes("far-one") && t.includes("far-bell"));
        const lines = screen.split("\n");
        const at = (test: RegExp) => lines.findIndex((l) => test.test(l));
        // This machine's heading and rows first, then remote1's.
        expect(at(/^── local · \d+ tasks? ─+$/)).toBeGreaterThan(0);
        expect(at(/^── local /)).toBeLessThan(at(new RegExp(`\\s${local} near-one`)));
        expect(at(new RegExp(`\\s${local} near-one`))).toBeLessThan(at(/^── remote1 · \d+ tasks? ─+$/));
        expect(at(/^── remote1 /)).toBeLessThan(at(new RegExp(`\\s${far} far-one`)));
        // The remote task waiting counts as a local one would: the header and the terminal's title.
        expect(lines[0]).toMatch(/· ! \d+ waiting ·/);
        await until("the title with the wait", () => /^fleetcom ! \d+ waiting$/.test(tmux.format("dash", "pane_title")));
        // A host's task by its reference: `:remote1:ID⏎`; a host that is not there is named with those that are.
        // The first key on its own: keys that come in one read while the list has them are a paste, no action.
        tmux.type("dash", ":");
        await tmux.waitFor("dash", "the reference begun", (t) => t.includes("go to task"));
        tmux.type("dash", `remote1:${far}`);
        await tmux.waitFor("dash", "the reference typed", (t) => t.includes(`go to task remote1:${far}`));
        tmux.press("dash", "Enter");
        await tmux.waitFor("dash", "the cursor on remote1's task", (t) => new RegExp(`^› .*\\s${far} far-one`, "m").test(t));
        tmux.type("dash", ":");
        await tmux.waitFor("dash", "the reference begun", (t) => t.includes("go to task"));
        tmux.type("dash", "nowhere:3");
        tmux.press("dash", "Enter");
        await tmux.waitFor("dash", "the unknown host named", (t) => t.includes("no host 'nowhere' (local, remote1)"));
        // The filter leaves the remote row alone; Enter attaches to it over ssh.
        tmux.type("dash", "/");
        await tmux.waitFor("dash", "the filter line", (t) => /^\/ +\(\d+ of \d+ tasks\)/m.test(t));
        tmux.type("dash", "far-one");
        tmux.press("dash", "Enter");
        tmux.press("dash", "End");
        // Running, and quiet or not (a running task shows ∙ after idle_seconds without output, 10 s by default).
        await tmux.waitFor("dash", "the cursor on the remote row", (t) => new RegExp(`^› [✻∙].*\\s${far} far-one`, "m").test(t));
        tmux.press("dash", "Enter");
        await tmux.waitFor("dash", "the remote task's screen", (t) => t.includes("far-screen") && !t.includes("── remote1"));
        tmux.type("dash", "typed-far");
        tmux.press("dash", "Enter");
        await tmux.waitFor("dash", "the typed line, echoed there", (t) => t.split("\n").filter((l) => l.includes("typed-far")).length === 2);
        tmux.press("dash", "C-\\", "d");
        const back = await tmux.waitFor(
          "dash",
          "the dashboard again, the cursor on the remote row",
          (t) => new RegExp(`^› .*\\s${far} far-one`, "m").test(t) && t.includes("── remote1"),
        );
        expect(back).toContain("filter: far-one");
        expect(back).not.toContain("near-one");
        // n asks on which host first (the filter cleared), and the command starts there.
        tmux.press("dash", "Escape");
        // Its effect first: an Escape and an `n` read in one chunk are Alt+n, which nothing answers
        // (ui-keys.ts), and a loaded machine reads them so (CI, round 3's ninth session).
        await tmux.waitFor("dash", "the filter cleared", (t) => !t.includes("filter: far-one") && t.includes("near-one"));
        tmux.type("dash", "n");
        await tmux.waitFor("dash", "the host question", (t) => t.includes("Run on which host? (local, remote1; empty: local)"));
        tmux.type("dash", "remote1");
        tmux.press("dash", "Enter");
        await tmux.waitFor("dash", "the command prompt", (t) => t.includes("Run in remote1:~"));
        tmux.type("dash", "echo made-by-n; exec cat");
        tmux.press("dash", "Enter");
        const started = /started task remote1:(\d+)/.exec(await tmux.waitFor("dash", "the new remote task", (t) => /started task remote1:\d+/.test(t)));
        made = Number(started![1]);
        expect((await remoteTasks()).find((t) => t.id === made)?.typed).toBe("echo made-by-n; exec cat");
        // The link drops (the shared ssh connection killed): the host's heading says so, and its rows come back by themselves.
        process.kill(masterPid(), "SIGKILL");
        await tmux.waitFor("dash", "the host's link down", (t) => /^── remote1 · unreachable \(.+\) · retrying in \d+ s ─+$/m.test(t));
        await tmux.waitFor("dash", "remote1's rows again", (t) => /^── remote1 · \d+ tasks ─+$/m.test(t) && t.includes("far-one"));
        tmux.type("dash", "q");
        await tmux.waitForExit("dash");
        expect(await ok(["peek", `remote1:${far}`])).toContain("typed-far");
        expect((await remoteTasks()).find((t) => t.id === far)?.state).toBe("running");
      } finally {
        tmux.kill();
        // Whatever happened: a task left waiting would be the one a later test's wait --any hears.
        const kills = [`remote1:${far}`, `remote1:${bell}`, String(local), ...(made === null ? [] : [`remote1:${made}`])];
        await Promise.all(kills.map((task) => cli(["kill", task])));
      }
    },
  );

  remoteTest("the dashboard draws this machine's rows while a host refuses and another never answers, each one line", async () => {
    const config = join(fleet.sandbox.config, "config.toml");
    const kept = readFileSync(config, "utf8");
    writeFileSync(config, `${kept}\n[hosts.down]\nssh = "refused"\nhome = "/nowhere"\n\n[hosts.mute]\nssh = "silent"\nhome = "/nowhere"\n`);
    const local = Number((await ok(["run", "--name", "near-two", "--", "printf 'near-ready\\n'; exec cat"])).trim());
    const tmux = new Tmux(env, root);
    try {
      tmux.window("dash", shellWords(fleetcomArgv([])), { cols: 120, rows: 40 });
      // A refused host is one line, tried again with backoff (1 s, 2 s, then 4 s: it was tried twice more).
      const screen = await tmux.waitFor("dash", "the refused host, retried", (t) =>
        /^── down · unreachable \(Connection refused\) · retrying in 4 s ─+$/m.test(t),
      );
      expect(screen.split("\n").filter((l) => l.includes("down"))).toHaveLength(1);
      // The host that never answers is still being connected to (its bound here is a minute) ...
      expect(screen).toMatch(/^── mute · connecting… ─+$/m);
      expect(screen).toMatch(new RegExp(`\\s${local} near-two`));
      // ... and this machine's rows are there, and answer keys: a peek at the local task.
      tmux.type("dash", "/");
      await tmux.waitFor("dash", "the filter line", (t) => /^\/ +\(\d+ of \d+ tasks\)/m.test(t));
      tmux.type("dash", "near-two");
      tmux.press("dash", "Enter");
      tmux.press("dash", "End");
      tmux.press("dash", "Space");
      await tmux.waitFor("dash", "the local task's peek", (t) => t.includes(`── peek ${local} near-two`) && t.includes("near-ready"));
      tmux.press("dash", "Escape");
      // The peek closed before `q`: read in one chunk with the Escape, it would be Alt+q.
      await tmux.waitFor("dash", "the peek closed", (t) => !t.includes("── peek"));
      tmux.type("dash", "q");
      await tmux.waitForExit("dash");
    } finally {
      tmux.kill();
      writeFileSync(config, kept);
      await cli(["kill", String(local)]);
    }
  });

  remoteTest("the dashboard names a host whose previous fleet was lost, with the command that recovers it there, until it is recovered", async () => {
    await ok(["--host", "remote1", "run", "--name", "far-lost", "--", "sleep 3600"]);
    // The remote daemon's snapshot dir is on this same machine: wait until a snapshot there holds the task.
    const { dir } = JSON.parse(await ok(["--host", "remote1", "recover", "--list", "--json"])) as { dir: string };
    const snapshotted = () => existsSync(dir) && readdirSync(dir).some((n) => n.endsWith(".json") && readFileSync(join(dir, n), "utf8").includes("far-lost"));
    await until("the remote snapshot of the task", snapshotted);
    const daemon = remoteDaemonPid()!;
    process.kill(daemon, "SIGKILL");
    await until("the remote daemon to die", () => !existsSync(`/proc/${daemon}`));
    const tmux = new Tmux(env, root);
    try {
      tmux.window("dash", shellWords(fleetcomArgv([])), { cols: 160, rows: 40 });
      const lost = /remote1: the previous fleet \(\d+ tasks?, autosaved \d+s ago\) ended unexpectedly — fleetcom --host remote1 recover --latest/;
      await tmux.waitFor("dash", "the host's lost fleet, named with its remedy", (t) => lost.test(t));
      // Recovered there by another client: the line goes, and the task is back among the host's rows.
      await ok(["--host", "remote1", "recover", "--latest"]);
      await tmux.waitFor("dash", "the line gone, the task back", (t) => !t.includes("remote1: the previous fleet") && t.includes("far-lost"));
      tmux.type("dash", "q");
      await tmux.waitForExit("dash");
    } finally {
      tmux.kill();
      await cli(["rm", "--force", "remote1:far-lost"]);
    }
  });

  remoteTest("from a terminal, --host H --kill asks its question there, through this client, and stops that fleet on y", async () => {
    await ok(["--host", "remote1", "run", "--name", "far-asked", "--", "sleep 3600"]);
    const daemon = remoteDaemonPid()!;
    const tmux = new Tmux(env, root);
    try {
      tmux.window("kill", shellWords(fleetcomArgv(["--host", "remote1", "--kill"])), { cols: 120, rows: 20 });
      await tmux.waitFor("kill", "the question asked there", (t) => /fleetcom: stop 1 task and the daemon\? y\/N$/m.test(t));
      tmux.type("kill", "y");
      await tmux.waitFor("kill", "the daemon there stopped", (t) => t.includes(`stopped daemon ${daemon}`));
      await tmux.waitForExit("kill");
    } finally {
      tmux.kill();
    }
    await until("the remote daemon to end", () => !existsSync(`/proc/${daemon}`));
  });

  remoteTest("an attached client whose ssh link is killed says so, reconnects by itself and restores the screen", async () => {
    const id = Number((await ok(["--host", "remote1", "run", "--name", "pad2", "--", "printf 'before-drop\\n'; exec cat"])).trim());
    const client = new PtyClient(fleetcomArgv(["attach", "remote1:pad2"]), { ...env, FLEETCOM_ATTACH_STATUS: "1" }, fleet.sandbox.home, {
      cols: 200,
      rows: 24,
    });
    try {
      await client.waitForScreen("the remote task's screen", (s) => s.includes("before-drop"));
      await client.waitForRawMode();
      process.kill(masterPid(), "SIGKILL");
      await client.waitForScreen("the link's loss on the status row", (s) => s.includes("remote1 is unreachable") && s.includes("retrying in"));
      await client.waitForScreen("the reconnection", (s) => s.includes("reconnected to remote1"));
      // The screen is the task's again, and keys reach it.
      await client.waitForScreen("the restored screen", (s) => s.includes("before-drop"));
      client.write("after-drop\r");
      await client.waitForScreen("the typed line, echoed there", (s) => s.split("\n").filter((l) => l.includes("after-drop")).length === 2);
      client.write("\x1cd");
      expect(await client.proc.exited).toBe(0);
    } finally {
      client.kill();
    }
    expect((await remoteTasks()).find((t) => t.id === id)?.state).toBe("running");
    await ok(["kill", "remote1:pad2"]);
  });

  remoteTest("a killed ssh connection leaves the remote daemon and its task running", async () => {
    const id = Number((await ok(["--host", "remote1", "run", "--", "echo ready; cat"])).trim());
    const before = (await remoteTasks()).find((t) => t.id === id)!;
    const daemon = remoteDaemonPid();
    expect(daemon).not.toBeNull();
    // A client holding the connection (it has printed the screen), then its shared ssh master killed outright.
    const follower = Bun.spawn(fleetcomArgv(["peek", "--follow", `remote1:${id}`]), { env, cwd: fleet.sandbox.home, stdout: "pipe", stderr: "pipe" });
    const reader = follower.stdout.getReader();
    let seen = "";
    while (!seen.includes("ready")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`peek --follow ended: ${await new Response(follower.stderr).text()}`);
      seen += new TextDecoder().decode(value);
    }
    process.kill(masterPid(), "SIGKILL");
    expect(await follower.exited).toBe(3);
    expect(await new Response(follower.stderr).text()).toContain("remote1 is unreachable");
    const after = (await remoteTasks()).find((t) => t.id === id)!;
    expect(after.state).toBe("running");
    expect(after.pid).toBe(before.pid);
    expect(remoteDaemonPid()).toBe(daemon);
    await ok(["kill", `remote1:${id}`]);
  });

  remoteTest(
    "after one command the next reach the host's daemon through a forward of its socket: no ssh started, the host's environment; a forward made another way or to another daemon is not used",
    async () => {
      // The tests' ssh behind a wrapper that counts its runs.
      const runsLog = join(root, "ssh-runs");
      const counting = join(root, "counting-ssh");
      writeFileSync(counting, `#!/bin/sh\necho run >> ${runsLog}\nexec ssh -F ${sshConfig} "$@"\n`);
      chmodSync(counting, 0o755);
      const via = { FLEETCOM_SSH: counting };
      const runs = () => (existsSync(runsLog) ? readFileSync(runsLog, "utf8").split("\n").length - 1 : 0);
      const record = join(fleet.sandbox.runtime, "host-remote1.forward");
      await ok(["--host", "remote1", "ls"], via);
      // Taking connections, not only there: the test before killed the ssh that held the forward, so
      // its socket file may still stand, and the ssh that forwards anew may not have counted its run yet.
      await until("the forward of remote1's daemon socket to take a connection", () => accepts(join(fleet.sandbox.runtime, "host-remote1.sock")));
      const before = runs();
      const command = 'echo "home=$HOME secret=${LOCAL_SECRET:-unset}"; exec cat';
      const id = Number((await ok(["--host", "remote1", "run", "--", command], { ...via, LOCAL_SECRET: "s3cret" })).trim());
      await until("the task's line", async () => (await ok(["peek", `remote1:${id}`], via)).includes("home="));
      expect(await ok(["peek", `remote1:${id}`], via)).toContain(`home=${remoteHome} secret=unset`);
      expect(runs()).toBe(before);
      // A record naming another daemon: the bridge, which makes the forward anew.
      writeFileSync(record, readFileSync(record, "utf8").replace(/^[^\n]*/, "another-daemon"));
      await ok(["--host", "remote1", "ls"], via);
      expect(runs()).toBeGreaterThan(before);
      await until("the record made anew", () => !readFileSync(record, "utf8").startsWith("another-daemon"));
      // The host reached another way (here an ssh that cannot run) does not take the forward made through this one.
      const other = await cli(["--host", "remote1", "ls"], { FLEETCOM_SSH: "false" });
      expect(other.code).toBe(3);
      // A follower through the forward whose daemon there stops is told that, not that the link dropped.
      const follower = Bun.spawn(fleetcomArgv(["peek", "--follow", `remote1:${id}`]), {
        env: { ...env, ...via },
        cwd: fleet.sandbox.home,
        stdout: "pipe",
        stderr: "pipe",
      });
      const reader = follower.stdout.getReader();
      for (let seen = ""; !seen.includes("home="); ) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`peek --follow ended: ${await new Response(follower.stderr).text()}`);
        seen += new TextDecoder().decode(value);
      }
      // The daemon there stopped: the forward takes the connection and reaches nothing. The bridge
      // starts a daemon, and the master is not asked again for the forward it holds (one ssh run:
      // where a server forbids forwarding, every command would otherwise start a second ssh).
      await ok(["--host", "remote1", "--kill"], via);
      await follower.exited;
      expect(await new Response(follower.stderr).text()).not.toContain("unreachable");
      const stopped = runs();
      await ok(["--host", "remote1", "ls"], via);
      expect(runs()).toBe(stopped + 1);
      // The new daemon is reached through the same forward.
      await ok(["--host", "remote1", "ls"], via);
      expect(runs()).toBe(stopped + 1);
      // A daemon there that takes the connection and never answers (stopped): ls across hosts
      // costs its bound and ends, as through the bridge; the forward waits for a welcome no longer.
      const daemon = remoteDaemonPid()!;
      process.kill(daemon, "SIGSTOP");
      try {
        const stalled = await cli(["ls"], { ...via, FLEETCOM_HOST_TIMEOUT_MS: "1500" });
        expect(stalled.code).toBe(0);
        expect(stalled.stderr).toContain("remote1 is unreachable: no answer within 1.5 s");
      } finally {
        process.kill(daemon, "SIGCONT");
      }
    },
  );

  remoteTest("a host that refuses or never answers costs ls its bound: the local rows print, the host is named on stderr", async () => {
    const config = join(fleet.sandbox.config, "config.toml");
    const kept = readFileSync(config, "utf8");
    writeFileSync(config, `${kept}\n[hosts.down]\nssh = "refused"\nhome = "/nowhere"\n`);
    let far: number | null = null;
    try {
      const id = Number((await ok(["run", "--name", "local-one", "--", "cat"])).trim());
      far = Number((await ok(["--host", "remote1", "run", "--name", "far-two", "--", "cat"])).trim());
      const refused = await cli(["ls"]);
      expect(refused.code).toBe(0);
      expect(refused.stdout).toMatch(new RegExp(`^-\\s+${id}\\s.*local-one`, "m"));
      expect(refused.stdout).toMatch(/^remote1\s/m);
      expect(refused.stderr).toStartWith("fleetcom: down is unreachable: ssh: connect to host 127.0.0.1 port");
      expect(refused.stderr).toContain("Connection refused");
      // Named with --host, the host's failure is the command's.
      const named = await cli(["--host", "down", "ls"]);
      expect(named.code).toBe(3);
      expect(named.stderr).toContain("down is unreachable: ssh: connect to host 127.0.0.1 port");
      // A host that never answers costs the listing its bound, no more: the rows print. (Alone: on a
      // loaded machine remote1 could miss so short a bound too.)
      writeFileSync(config, `[hosts.mute]\nssh = "silent"\nhome = "/nowhere"\n`);
      const mute = await cli(["ls"], { FLEETCOM_HOST_TIMEOUT_MS: "1500" });
      expect(mute.code).toBe(0);
      expect(mute.stdout).toMatch(new RegExp(`^-\\s+${id}\\s.*local-one`, "m"));
      expect(mute.stderr).toBe("fleetcom: mute is unreachable: no answer within 1.5 s\n");
      await ok(["kill", String(id)]);
    } finally {
      writeFileSync(config, kept);
      if (far !== null) await cli(["kill", `remote1:${far}`]);
    }
  });

  remoteTest("wait --any hears a remote task start waiting, and names it HOST:ID", async () => {
    const local = Number((await ok(["run", "--", "cat"])).trim());
    const id = Number((await ok(["--host", "remote1", "run", "--", "printf 'ring\\a'; exec cat"])).trim());
    await until("the remote bell", async () => (await remoteTasks()).find((t) => t.id === id)?.attention);
    expect(await cli(["wait", "--any", "--for", "waiting", "--timeout", "100"])).toEqual({ code: 0, stdout: `remote1:${id}\n`, stderr: "" });
    await ok(["kill", String(local)]);
    await ok(["kill", `remote1:${id}`]);
  });

  remoteTest("a client of another protocol version is told both versions by the remote daemon", async () => {
    await remoteTasks();
    const ssh = Bun.spawn(["ssh", "-F", sshConfig, "-T", "remote1", "--", installed(), "bridge"], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    ssh.stdin.write(encodeControl({ type: "hello", protocol: PROTOCOL_VERSION + 1, version: "99.0.0", cwd: "", env: {}, cols: 80, rows: 24 }));
    ssh.stdin.flush();
    const decoder = new FrameDecoder(MAX_DAEMON_FRAME);
    const messages: { type: string; error?: string; daemon?: unknown }[] = [];
    for await (const chunk of ssh.stdout) {
      for (const frame of decoder.push(chunk)) if (frame.kind === FrameKind.control) messages.push(decodeJson(frame.payload) as (typeof messages)[number]);
      if (messages.length) break;
    }
    ssh.kill();
    if (!messages.length) throw new Error(`no answer through the bridge: ${await new Response(ssh.stderr).text()}`);
    expect(messages[0]).toMatchObject({ type: "refused", daemon: { protocol: PROTOCOL_VERSION, version: VERSION } });
    expect(messages[0]!.error).toContain(`fleetcom ${VERSION}`);
    expect(messages[0]!.error).toContain("fleetcom 99.0.0");
  });

  remoteTest("no fleetcom process listens on a TCP port", async () => {
    await remoteTasks();
    expect(remoteDaemonPid()).not.toBeNull();
    // Every process of this test's fleets: both daemons, their tasks, the remote user's bridges.
    const ours = new Set([fleet.daemonPid(), ...server.userPids()].filter((p) => p !== null));
    expect(ours.size).toBeGreaterThan(1);
    const listeners = [...must(["ss", "-ltnpH"]).matchAll(/pid=(\d+),/g)].map((m) => Number(m[1]));
    expect(listeners.filter((pid) => ours.has(pid))).toEqual([]);
  });

  remoteTest(
    "run --worktree for a host makes the worktree in that host's repository; a recipe's host entry gets it made again there when it is gone",
    async () => {
      must([
        "ssh",
        "-F",
        sshConfig,
        "remote1",
        "--",
        "git init -q trees && git -C trees -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m start",
      ]);
      const repo = join(remoteHome, "trees");
      const tree = join(remoteHome, "trees.worktrees", "feat");
      const id = Number((await ok(["--host", "remote1", "run", "--worktree", "feat", "--cwd", repo, "--name", "in-tree", "--", "pwd; exec cat"])).trim());
      await until("the task's directory on its screen", async () => (await ok(["peek", `remote1:${id}`])).includes(tree));
      expect(existsSync(join(tree, ".git"))).toBe(true);
      // Nothing of it here: this machine's sandbox has no such repository or worktree.
      expect(existsSync(join(fleet.sandbox.home, "trees.worktrees"))).toBe(false);
      // Removed, not only killed: a later save of remote1 must not find it.
      await ok(["rm", "--force", `remote1:${id}`]);
      // The worktree deleted by hand there; a recipe naming it on remote1 has it made again there, then starts in it.
      must(["ssh", "-F", sshConfig, "remote1", "--", `rm -rf '${tree}'`]);
      const recipe = join(fleet.sandbox.home, "trees.json");
      const worktree = { repo, branch: "feat", path: tree };
      writeFileSync(recipe, JSON.stringify({ [`remote1:${tree}`]: [{ cmd: "pwd; exec cat", name: "tree-again", worktree }] }));
      const loaded = await cli(["load", recipe]);
      expect(loaded.code).toBe(0);
      expect(loaded.stderr).toContain(`fleetcom: remote1: worktree ${tree} recreated from branch feat`);
      expect(loaded.stdout).toMatch(/^loaded 'trees' on remote1: 1 task\(s\), 0 skipped/m);
      expect(existsSync(join(tree, ".git"))).toBe(true);
      const again = (await remoteTasks()).find((t) => t.name === "tree-again" && t.state === "running")!;
      expect(again.cwd).toBe(tree);
      // rm --worktree removes the worktree there, where it is.
      await ok(["rm", "--force", "--worktree", `remote1:${again.id}`]);
      expect(existsSync(tree)).toBe(false);
    },
  );

  remoteTest("diff HOST:TASK runs git on that host, in the task's repository there, against its baseline", async () => {
    const setup =
      "git init -q -b main difftree && cd difftree && echo one > a.txt && git add a.txt && git -c user.name=t -c user.email=t@example.com commit -qm start";
    must(["ssh", "-F", sshConfig, "remote1", "--", setup]);
    const repo = join(remoteHome, "difftree");
    const tree = join(remoteHome, "difftree.worktrees", "agent");
    const id = Number((await ok(["--host", "remote1", "run", "--worktree", "agent", "--cwd", repo, "--", "exec cat"])).trim());
    await until("its baseline, taken there", async () => (await remoteTasks()).find((t) => t.id === id)?.baseline ?? undefined);
    must(["ssh", "-F", sshConfig, "remote1", "--", `echo two >> '${tree}/a.txt' && echo new > '${tree}/b.txt'`]);
    const r = await cli(["diff", `remote1:${id}`, "--stat"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/a\.txt \| 1 \+/);
    expect(r.stdout).toMatch(/b\.txt \| 1 \+/);
    expect(r.stdout).toContain("2 files changed, 2 insertions(+)");
    // Nothing of it here.
    expect(existsSync(join(fleet.sandbox.home, "difftree"))).toBe(false);
    await ok(["rm", "--force", `remote1:${id}`]);
  });

  remoteTest("checkpoints HOST:TASK lists the task's checkpoints there, and rewind HOST:TASK puts its files back there", async () => {
    const setup =
      "git init -q -b main cptree && cd cptree && echo one > a.txt && git add a.txt && git -c user.name=t -c user.email=t@example.com commit -qm start";
    must(["ssh", "-F", sshConfig, "remote1", "--", setup]);
    const repo = join(remoteHome, "cptree");
    const tree = join(remoteHome, "cptree.worktrees", "agent");
    const id = Number((await ok(["--host", "remote1", "run", "--worktree", "agent", "--cwd", repo, "--", "exec cat"])).trim());
    const listed = await until("checkpoint 0, taken there", async () => {
      const l = JSON.parse(await ok(["checkpoints", `remote1:${id}`, "--json"])) as { top: string | null; checkpoints: { n: number }[] };
      return l.checkpoints.length > 0 && l;
    });
    expect(listed.top).toBe(tree);
    must(["ssh", "-F", sshConfig, "remote1", "--", `echo two >> '${tree}/a.txt' && echo new > '${tree}/b.txt'`]);
    const r = await cli(["rewind", `remote1:${id}`, "0"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("1 restored, 1 deleted");
    expect(must(["ssh", "-F", sshConfig, "remote1", "--", `cat '${tree}/a.txt'; ls '${tree}'`])).toBe("one\na.txt\n");
    await ok(["rm", "--force", `remote1:${id}`]);
  });

  remoteTest("a recipe whose key names a host starts that entry there and the rest here; ls shows both, and a second load starts neither", async () => {
    const recipe = join(fleet.sandbox.home, "mixed.json");
    writeFileSync(recipe, JSON.stringify({ "~": [{ cmd: "cat", name: "mixed-here" }], "remote1:~": [{ cmd: "cat", name: "mixed-there" }] }));
    const dry = await ok(["load", recipe, "--dry-run"]);
    expect(dry).toContain(`  remote1:${remoteHome}\n    cat  [name: mixed-there]`);
    expect(dry).toContain("2 task(s) would start");
    const loaded = await ok(["load", recipe]);
    expect(loaded).toMatch(/^loaded 'mixed': 1 task\(s\), 0 skipped/m);
    expect(loaded).toMatch(/^loaded 'mixed' on remote1: 1 task\(s\), 0 skipped/m);
    const named = async () =>
      (JSON.parse(await ok(["ls", "--json"])) as (TaskInfo & { host: string | null })[])
        .filter((t) => t.name?.startsWith("mixed-") && t.state === "running")
        .map((t) => [t.host, t.name, t.cwd]);
    expect(await named()).toEqual([
      [null, "mixed-here", fleet.sandbox.home],
      ["remote1", "mixed-there", remoteHome],
    ]);
    const table = await ok(["ls"]);
    expect(table.split("\n")[0]).toMatch(/^HOST\s+ID/);
    expect(table).toMatch(/^-\s+\d+.*mixed-here/m);
    expect(table).toMatch(/^remote1\s+\d+.*mixed-there/m);
    // Duplicates are each host's own: both entries are running where they belong, so neither starts again.
    const again = await ok(["load", recipe]);
    expect(again).toMatch(/^loaded 'mixed': 0 task\(s\), 1 already running/m);
    expect(again).toMatch(/^loaded 'mixed' on remote1: 0 task\(s\), 1 already running/m);
    expect(await named()).toHaveLength(2);
    await ok(["kill", "mixed-here"]);
    await ok(["kill", "remote1:mixed-there"]);
  });

  remoteTest("save from a fleet on two hosts writes the host's key; both fleets killed, a load brings both back", async () => {
    await ok(["run", "--name", "span-here", "--", "cat"]);
    await ok(["--host", "remote1", "run", "--name", "span-there", "--", "cat"]);
    const saved = await cli(["save", "span"]);
    expect(saved).toMatchObject({ code: 0, stderr: "" });
    const file = join(fleet.sandbox.config, "sessions", "span.json");
    const dirs = JSON.parse(readFileSync(file, "utf8")).dirs as Record<string, { cmd: string; name?: string }[]>;
    expect(dirs["remote1:~"]).toContainEqual({ cmd: "cat", name: "span-there" });
    expect(dirs["~"]).toContainEqual({ cmd: "cat", name: "span-here" });
    expect(Object.keys(dirs).every((k) => k === "~" || k === "remote1:~")).toBe(true);
    const listed = (JSON.parse(await ok(["sessions", "--json"])) as { sessions: { name: string; dirs: string[] }[] }).sessions;
    expect(listed.find((l) => l.name === "span")?.dirs.sort()).toEqual(["remote1:~", "~"]);
    await ok(["--kill", "--yes"]);
    await ok(["--host", "remote1", "--kill", "--yes"]);
    await until("the remote daemon to end", () => remoteDaemonPid() === null || !existsSync(`/proc/${remoteDaemonPid()}`));
    const loaded = await ok(["load", "span"]);
    expect(loaded).toMatch(/^loaded 'span' on remote1: \d+ task\(s\)/m);
    const running = (JSON.parse(await ok(["ls", "--json"])) as (TaskInfo & { host: string | null })[])
      .filter((t) => t.state === "running")
      .map((t) => [t.host, t.name]);
    expect(running).toContainEqual([null, "span-here"]);
    expect(running).toContainEqual(["remote1", "span-there"]);
    await ok(["kill", "span-here"]);
    await ok(["kill", "remote1:span-there"]);
  });

  remoteTest("a recipe naming a host that is down starts the rest and exits 3 naming the host and what it did not start; save leaves it out", async () => {
    const config = join(fleet.sandbox.config, "config.toml");
    const kept = readFileSync(config, "utf8");
    writeFileSync(config, `${kept}\n[hosts.down]\nssh = "refused"\nhome = "/nowhere"\n`);
    try {
      const recipe = join(fleet.sandbox.home, "partly-down.json");
      writeFileSync(recipe, JSON.stringify({ "~": [{ cmd: "cat", name: "up-here" }], "down:/srv/train": ["python train.py"] }));
      const r = await cli(["load", recipe]);
      expect(r.code).toBe(3);
      expect(r.stdout).toMatch(/^loaded 'partly-down': 1 task\(s\)/m);
      expect(r.stderr).toStartWith("fleetcom: down is unreachable: ssh: connect to host 127.0.0.1 port");
      expect(r.stderr).toContain("; not started there: 1 task(s): python train.py (in /srv/train)\n");
      const here = (JSON.parse(await ok(["ls", "--json"])) as (TaskInfo & { host: string | null })[]).find((t) => t.name === "up-here");
      expect(here).toMatchObject({ host: null, state: "running" });
      // A save reaches what it can: the host that is down is named and left out, and the save succeeds.
      const saved = await cli(["save", "partly"]);
      expect(saved.code).toBe(0);
      expect(saved.stdout).toStartWith("saved 'partly': ");
      expect(saved.stderr).toStartWith("fleetcom: down is unreachable: ssh: connect to host 127.0.0.1 port");
      expect(saved.stderr).toEndWith("; its tasks are not in 'partly'\n");
      await ok(["kill", "up-here"]);
    } finally {
      writeFileSync(config, kept);
    }
  });

  remoteTest("the dashboard's w saves every reachable host's fleet under its key, and names in its message a host it left out", async () => {
    const config = join(fleet.sandbox.config, "config.toml");
    const kept = readFileSync(config, "utf8");
    writeFileSync(config, `${kept}\n[hosts.down]\nssh = "refused"\nhome = "/nowhere"\n`);
    const dashboard = new PtyClient(fleetcomArgv([]), env, fleet.sandbox.home, { cols: 220, rows: 24 });
    try {
      await ok(["run", "--name", "desk-here", "--", "cat"]);
      await ok(["--host", "remote1", "run", "--name", "desk-there", "--", "cat"]);
      await dashboard.waitForScreen("the local row", (s) => s.includes("desk-here"));
      await dashboard.waitForRawMode();
      dashboard.write("w");
      await dashboard.waitForScreen("the prompt", (s) => s.includes("Save the fleet as session"));
      dashboard.write("desk\r");
      const said = await dashboard.waitForScreen("saved", (s) => s.includes("saved 'desk'"));
      expect(said).toContain("down is unreachable");
      const dirs = JSON.parse(readFileSync(join(fleet.sandbox.config, "sessions", "desk.json"), "utf8")).dirs;
      expect(dirs["remote1:~"]).toContainEqual({ cmd: "cat", name: "desk-there" });
      expect(dirs["~"]).toContainEqual({ cmd: "cat", name: "desk-here" });
      dashboard.write("q");
      expect(await dashboard.proc.exited).toBe(0);
    } finally {
      dashboard.kill();
      writeFileSync(config, kept);
    }
    await ok(["kill", "desk-here"]);
    await ok(["kill", "remote1:desk-there"]);
  });
});
