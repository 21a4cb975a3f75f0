// remote-ls and remote-latency: a fleet on another machine over ssh (docs/remote.md). A real sshd
// on 127.0.0.1 and a second local user as the remote (test/harness/sshd.ts), 10 tasks or sessions
// there. Needs root and /usr/sbin/sshd; without them the lines say skipped.
//
// remote-ls: `fleetcom --host remote1 ls` with its ssh connection shared through ControlMaster (the
// first call opened it) against `ssh remote1 tmux ls` through a ControlMaster of its own (target:
// at most 1.5× tmux).
//
// remote-latency-p50/p99: typing into an attached remote task, `fleetcom --host remote1 attach`
// against `ssh -t remote1 tmux attach` (each through its shared connection), measured as
// latency.ts measures a local attach: attached to an echoing `cat`, one letter typed into the
// client's PTY, timed until it shows in the client's output; blocks of each in turn (target: at
// most 1.3× tmux). 1,000 samples each: with 300, the p99 was the third slowest keystroke, a stray
// stall on either side, and moved between 0.85× and 3.53× from run to run (docs/benchmarks.md).
//
// remote-latency-floor-p50/p99: the same typing through bench/floor/relay.ts in fleetcom's shape
// (a Bun client here, ssh -T to a Bun bridge there, a Bun server holding the PTY), in the same
// blocks, against tmux: what any Bun program on those hops costs.
//
// hosts-add-fresh: `fleetcom hosts add remote1` to a host with no fleetcom there (its install, the
// shared connection and the pack kept in the cache directory removed before each run: the first
// host at a new version, which pays for the packing) until the host is ready, against `scp` of the
// same binary, unpacked, to the same host over a connection of its own (`scp -O`: the harness's
// sshd runs no sftp subsystem); 3 runs each in turn. The line adds the size that crossed the wire
// (target: at most 45 MB).
//
// hosts-add-packed: the same with the pack kept from the run before: every later host at this
// version.
//
// hosts-add-next-version: the same, with a previous fleetcom there (this binary with one byte
// changed in each of 9 blocks of a megabyte spread over it, as many as differ between two real
// builds), from which `hosts add` takes the blocks it shares.
import { chownSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type SshServer, sshdAvailable, startSshServer } from "../test/harness/sshd.ts";
import {
  alternate,
  COLS,
  compareLine,
  compileFloor,
  FLEETCOM_BIN,
  makeSandbox,
  median,
  percentile,
  PtyClient,
  ROWS,
  runCommand,
  sleep,
  timeCommand,
  versusLine,
} from "./common.ts";
import { ECHOING_CAT, EchoClient, measure } from "./latency.ts";

const TASKS = 10;
const RUNS = 30;
const WARMUP = 3;
const LATENCY_SAMPLES = 1_000;
const LATENCY_WARMUP = 20;
const LATENCY_BLOCK = 50;
const FRESH_RUNS = 3;
/** The echoing cat as one word of the remote shell's command line. */
const QUOTED_CAT = `'${ECHOING_CAT.replaceAll("'", `'\\''`)}'`;

export async function run(): Promise<string[]> {
  if (!sshdAvailable())
    return [
      "hosts-add-fresh  skipped: needs root, /usr/sbin/sshd and useradd",
      "hosts-add-packed  skipped: the same",
      "hosts-add-next-version  skipped: the same",
      "remote-ls  skipped: the same",
      "remote-latency  skipped: the same",
    ];
  const { root, env: base } = makeSandbox("remote");
  const server = await startSshServer(join(root, "ssh"), base.HOME!);
  const env = { ...base, FLEETCOM_SSH: `ssh -F ${server.config}` };
  const shared = ["-o", "ControlMaster=auto", "-o", `ControlPath=${root}/tmux-%C`, "-o", "ControlPersist=60"];
  const ssh = (command: string, tty = "-T") => ["ssh", "-F", server.config, tty, ...shared, "remote1", "--", command];
  const endFleetcomMaster = () =>
    Bun.spawnSync(["ssh", "-F", server.config, "-o", `ControlPath=${base.FLEETCOM_RUNTIME_DIR}/ssh-%C`, "-O", "exit", "remote1"], {
      stdout: "ignore",
      stderr: "ignore",
    });
  try {
    process.stderr.write("hosts add to a fresh host, against scp…\n");
    const fresh = await hostsAddFresh(env, server, endFleetcomMaster, "fresh");
    const packed = await hostsAddFresh(env, server, endFleetcomMaster, "packed");
    const next = await hostsAddFresh(env, server, endFleetcomMaster, "next-version");
    for (let i = 1; i <= TASKS; i++) await runCommand([FLEETCOM_BIN, "--host", "remote1", "run", "--", "sleep 3600"], env);
    await runCommand(ssh("tmux -L bench -f /dev/null new -d -s s1 sleep 3600 \\; set-option -g status off"), env);
    for (let i = 2; i <= TASKS; i++) await runCommand(ssh(`tmux -L bench new -d -s s${i} sleep 3600`), env);
    const fleetcom = () => timeCommand([FLEETCOM_BIN, "--host", "remote1", "ls"], env);
    const tmux = () => timeCommand(ssh("tmux -L bench ls"), env);
    await alternate(WARMUP, fleetcom, tmux);
    const samples = await alternate(RUNS, fleetcom, tmux);
    return [
      fresh,
      packed,
      next,
      compareLine("remote-ls", median(samples.fleetcom), median(samples.tmux)),
      ...(await latency(env, ssh, await remoteFloor(root, server, env, ssh))),
    ];
  } finally {
    await runCommand([FLEETCOM_BIN, "--host", "remote1", "--kill", "--yes"], env).catch(() => {});
    Bun.spawnSync(["ssh", "-F", server.config, ...shared, "-O", "exit", "remote1"], { stdout: "ignore", stderr: "ignore" });
    endFleetcomMaster();
    await server.stop();
  }
}

/** The blocks that differ between two builds, as measured (docs/benchmarks.md, Round 4). */
const CHANGED_BLOCKS = 9;

/**
 * hosts-add-fresh (-packed, with the pack kept here; -next-version, with a previous build there):
 * `hosts add` to a host without this version, against scp of the same binary; the last run leaves
 * it installed.
 */
async function hostsAddFresh(
  env: Record<string, string>,
  server: SshServer,
  endFleetcomMaster: () => void,
  kind: "fresh" | "packed" | "next-version",
): Promise<string> {
  let wire = "";
  const installs = join(server.home, ".local/share/fleetcom");
  const fleetcom = async () => {
    rmSync(installs, { recursive: true, force: true });
    if (kind === "fresh") rmSync(join(env.HOME!, ".cache/fleetcom/packed"), { recursive: true, force: true });
    if (kind === "next-version") placePreviousBuild(installs, server.user);
    endFleetcomMaster();
    const started = performance.now();
    const out = await runCommand([FLEETCOM_BIN, "hosts", "add", "remote1"], env);
    const took = performance.now() - started;
    wire = /verified there; ([\d.]+ MiB sent [\w-]+)/.exec(out)?.[1] ?? "?";
    return took;
  };
  const scp = () => timeCommand(["scp", "-O", "-q", "-F", server.config, FLEETCOM_BIN, "remote1:.scp-copy"], env);
  const samples = await alternate(FRESH_RUNS, fleetcom, scp);
  rmSync(join(server.home, ".scp-copy"), { force: true });
  return `${versusLine(`hosts-add-${kind}`, median(samples.fleetcom), "scp", median(samples.tmux))}  wire=${wire.replace(/ /g, "_")}`;
}

/** A fleetcom of another version at `installs`, the remote user's: this binary with CHANGED_BLOCKS blocks changed. */
function placePreviousBuild(installs: string, user: string): void {
  const bytes = readFileSync(FLEETCOM_BIN);
  for (let i = 1; i <= CHANGED_BLOCKS; i++) {
    const at = Math.floor((bytes.length * i) / (CHANGED_BLOCKS + 1));
    bytes[at] = bytes[at]! ^ 0xff;
  }
  mkdirSync(join(installs, "0.0.0-previous"), { recursive: true });
  writeFileSync(join(installs, "0.0.0-previous", "fleetcom"), bytes, { mode: 0o755 });
  Bun.spawnSync(["chown", "-R", `${user}:`, join(installs, "../..")]);
}

type Ssh = (command: string, tty?: string) => string[];

/**
 * The relay floor in fleetcom's shape: its server on the remote (an echoing cat in its PTY), and a
 * client here whose bytes ssh carries to a bridge there. Returns the client's argv.
 */
async function remoteFloor(root: string, server: SshServer, env: Record<string, string>, ssh: Ssh): Promise<string[]> {
  const relay = compileFloor("relay", root);
  const there = join(server.home, "floor-relay");
  writeFileSync(there, readFileSync(relay), { mode: 0o755 });
  chownSync(there, server.uid, server.uid);
  const socket = join(server.home, "floor-relay.sock");
  await runCommand(ssh(`${there} serve ${socket} ${QUOTED_CAT} </dev/null >/dev/null 2>&1 &`), env);
  for (let tries = 0; !(await runCommand(ssh(`test -S ${socket} && echo yes`), env).catch(() => "")).includes("yes"); tries++) {
    if (tries > 100) throw new Error("the remote relay floor never listened");
    await sleep(50);
  }
  return [relay, "attach-through", ...ssh(`${there} bridge ${socket}`)];
}

/** remote-latency-p50/p99: an echoing cat on the remote, attached through each tool over ssh. */
async function latency(env: Record<string, string>, ssh: Ssh, floorArgv: string[]): Promise<string[]> {
  const id = (await runCommand([FLEETCOM_BIN, "--host", "remote1", "run", "--", ECHOING_CAT], env)).trim();
  await runCommand(ssh(`tmux -L bench new -d -s cat -x ${COLS} -y ${ROWS} ${QUOTED_CAT}`), env);
  const fleetcom = await EchoClient.ready(new PtyClient([FLEETCOM_BIN, "--host", "remote1", "attach", id], env));
  const tmux = await EchoClient.ready(new PtyClient(ssh("tmux -L bench attach -t cat", "-t"), env));
  const floor = await EchoClient.ready(new PtyClient(floorArgv, env));
  await measure(fleetcom, LATENCY_WARMUP);
  await measure(tmux, LATENCY_WARMUP);
  await measure(floor, LATENCY_WARMUP);
  const samples = { fleetcom: [] as number[], tmux: [] as number[], floor: [] as number[] };
  for (let done = 0; done < LATENCY_SAMPLES; done += LATENCY_BLOCK) {
    samples.fleetcom.push(...(await measure(fleetcom, LATENCY_BLOCK)));
    samples.tmux.push(...(await measure(tmux, LATENCY_BLOCK)));
    samples.floor.push(...(await measure(floor, LATENCY_BLOCK)));
  }
  return [
    ...[50, 99].map((p) => compareLine(`remote-latency-p${p}`, percentile(samples.fleetcom, p), percentile(samples.tmux, p))),
    ...[50, 99].map((p) => compareLine(`remote-latency-floor-p${p}`, percentile(samples.floor, p), percentile(samples.tmux, p))),
  ];
}
