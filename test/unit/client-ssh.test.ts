// The ssh command line (client-ssh.ts): the user's FLEETCOM_SSH / ssh_command read by sh's rules,
// without starting sh when it is plain words; the options fleetcom adds only where the user's ssh
// config sets none (ConnectTimeout, connection sharing); and the record of a forward, used only as it was made.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  capture,
  connectTimeoutOptions,
  forwardRecord,
  forwardTarget,
  type RemoteHost,
  sshArgv,
  sshCommandLine,
  sshFactsOf,
  sshReason,
} from "../../src/client-ssh.ts";

const ARGS = ["-T", "--", "gpu1", "true"];

test("an ssh command of plain words runs as those words", () => {
  expect(sshArgv(ARGS, "ssh")).toEqual(["ssh", ...ARGS]);
  expect(sshArgv(ARGS, " ssh -F /etc/fc/ssh_config  -o ControlPath=none ")).toEqual(["ssh", "-F", "/etc/fc/ssh_config", "-o", "ControlPath=none", ...ARGS]);
});

test("a command sh would read otherwise (expansion, quotes, redirection, an assignment first) goes through sh", () => {
  for (const command of ["ssh -F ~/ssh_config", "ssh -F $HOME/c", "LC_ALL=C ssh", 'ssh -o "User x"', "ssh 2>/dev/null", "ssh -F a*", "x | ssh", "ssh\n-v"])
    expect(sshArgv(ARGS, command)).toEqual(["sh", "-c", `exec ${command} "$@"`, "ssh", ...ARGS]);
});

const KEPT = ["FLEETCOM_SSH", "FLEETCOM_HOST_TIMEOUT_MS", "FLEETCOM_RUNTIME_DIR"].map((name) => [name, process.env[name]] as const);
afterEach(() => {
  for (const [name, value] of KEPT) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

test("ssh -G's answer: fleetcom adds a ConnectTimeout, and shares connections, only where the user's config sets neither", () => {
  const unset = "user me\nconnecttimeout none\ncontrolmaster false\ncontrolpath none\n";
  expect(sshFactsOf(unset)).toEqual({ share: true, timeout: true });
  expect(sshFactsOf(unset.replace("connecttimeout none", "connecttimeout 12"))).toEqual({ share: true, timeout: false });
  expect(sshFactsOf(unset.replace("controlmaster false", "controlmaster auto"))).toEqual({ share: false, timeout: true });
  expect(sshFactsOf(unset.replace("controlpath none", "controlpath ~/.ssh/cm-%C"))).toEqual({ share: false, timeout: true });
  // An ssh command that says nothing of them (not OpenSSH's -G): fleetcom's own are added, as before.
  expect(sshFactsOf("")).toEqual({ share: true, timeout: true });
});

test("ConnectTimeout is the one-host bound in whole seconds: 30, or FLEETCOM_HOST_TIMEOUT_MS rounded up", () => {
  expect(connectTimeoutOptions({})).toEqual(["-o", "ConnectTimeout=30"]);
  expect(connectTimeoutOptions({ FLEETCOM_HOST_TIMEOUT_MS: "3000" })).toEqual(["-o", "ConnectTimeout=3"]);
  expect(connectTimeoutOptions({ FLEETCOM_HOST_TIMEOUT_MS: "1500" })).toEqual(["-o", "ConnectTimeout=2"]);
  expect(connectTimeoutOptions({ FLEETCOM_HOST_TIMEOUT_MS: "soon" })).toEqual(["-o", "ConnectTimeout=30"]);
});

test("a host's command line carries ConnectTimeout before the destination unless the host's table says the user's config sets one", async () => {
  process.env.FLEETCOM_SSH = "ssh";
  delete process.env.FLEETCOM_HOST_TIMEOUT_MS;
  expect(await sshCommandLine("gpu1", "true", { share: false, timeout: true })).toEqual([
    "ssh",
    "-o",
    "BatchMode=yes",
    "-T",
    "-o",
    "ConnectTimeout=30",
    "--",
    "gpu1",
    "true",
  ]);
  expect(await sshCommandLine("gpu1", "true", { share: false, timeout: false, tty: true })).toEqual(["ssh", "-o", "BatchMode=yes", "-t", "--", "gpu1", "true"]);
});

test("a host whose table does not say (added before) is looked up with ssh -G: the user's own ConnectTimeout is left to ssh", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fleetcom-ssh-g-"));
  try {
    const config = join(dir, "ssh_config");
    writeFileSync(config, "Host bounded\n  ConnectTimeout 9\nHost free\n  ControlMaster auto\n  ControlPath /run/me/cm-%C\n");
    process.env.FLEETCOM_SSH = `ssh -F ${config}`;
    process.env.FLEETCOM_RUNTIME_DIR = join(dir, "runtime");
    process.env.FLEETCOM_HOST_TIMEOUT_MS = "4000";
    const bounded = await sshCommandLine("bounded", "true");
    expect(bounded.filter((word) => word.startsWith("ConnectTimeout"))).toEqual([]);
    expect(bounded).toContain("ControlMaster=auto");
    // The user's config shares connections to `free` itself, and sets no ConnectTimeout.
    expect(await sshCommandLine("free", "true")).toEqual(["ssh", "-F", config, "-o", "BatchMode=yes", "-T", "-o", "ConnectTimeout=4", "--", "free", "true"]);
    // What the table says is taken as it is: no ssh -G, whatever the config.
    expect(await sshCommandLine("bounded", "true", { share: false, timeout: true })).toContain("ConnectTimeout=4");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a forward's record gives back its daemon while the host is reached the same way, and nothing otherwise", () => {
  process.env.FLEETCOM_SSH = "ssh -F /etc/fc/ssh_config";
  const gpu1: RemoteHost = { name: "gpu1", ssh: "gpu1.lan", home: "/home/me", share: true };
  const target = { instance: "5b0e4c1a-0c55-4c39-9d27-2f0a3e1c7d11", socket: "/run/user/1000/fleetcom/default.sock" };
  const record = forwardRecord(gpu1, target);
  expect(forwardTarget(gpu1, record)).toEqual(target);
  // The host added again with another destination, or reached through another ssh command.
  expect(forwardTarget({ ...gpu1, ssh: "10.0.0.7" }, record)).toBeNull();
  process.env.FLEETCOM_SSH = "ssh";
  expect(forwardTarget(gpu1, record)).toBeNull();
  process.env.FLEETCOM_SSH = "ssh -F /etc/fc/ssh_config";
  // A record cut short, or empty, names nothing.
  expect(forwardTarget(gpu1, record.slice(0, -1))).toBeNull();
  expect(forwardTarget(gpu1, "")).toBeNull();
  expect(forwardTarget(gpu1, `\n${target.socket}\n`)).toBeNull();
});

// capture() under ssh's ControlPersist master: the local ssh is gone, but the master it forked keeps
// the pipes open while the remote command runs. A shell whose background child holds them is the same.
test("capture answers at its bound when the command has ended but something it started holds the pipes, and that holder is not waited for", async () => {
  const r = await capture(["sh", "-c", "sleep 300 & echo $!"], 300);
  const holder = Number(r.stdout.trim());
  try {
    expect(holder).toBeGreaterThan(0);
    expect(r.stderr).toEndWith("\nno answer within 0.3 s");
    expect(sshReason(r.stderr, r.code, r.signal)).toBe("no answer within 0.3 s");
  } finally {
    process.kill(holder, "SIGKILL");
  }
});

test("capture stops reading past its byte bound, ends the command and keeps what came before the bound", async () => {
  const r = await capture(["sh", "-c", "exec yes"], 60_000, undefined, 64 * 1024);
  expect(r.code).toBeNull();
  expect(r.stdout.length).toBeLessThanOrEqual(64 * 1024);
  expect(r.stdout.startsWith("y\ny\n")).toBe(true);
  expect(sshReason(r.stderr, r.code, r.signal)).toBe("it printed more than 65536 bytes");
});

test("capture keeps only the end of stderr, where ssh's reason is", async () => {
  const r = await capture(["sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x >&2; echo >&2; echo 'the reason' >&2; exit 255"], 60_000);
  expect(r.code).toBe(255);
  expect(r.stderr.length).toBeLessThanOrEqual(4096);
  expect(sshReason(r.stderr, r.code, r.signal)).toBe("the reason");
});
