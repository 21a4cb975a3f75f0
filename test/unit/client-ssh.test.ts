// The ssh command line (client-ssh.ts): the user's FLEETCOM_SSH / ssh_command read by sh's rules,
// without starting sh when it is plain words; and the record of a forward, used only as it was made.
import { afterEach, expect, test } from "bun:test";
import { capture, forwardRecord, forwardTarget, type RemoteHost, sshArgv, sshReason } from "../../src/client-ssh.ts";

const ARGS = ["-T", "--", "gpu1", "true"];

test("an ssh command of plain words runs as those words", () => {
  expect(sshArgv(ARGS, "ssh")).toEqual(["ssh", ...ARGS]);
  expect(sshArgv(ARGS, " ssh -F /etc/fc/ssh_config  -o ControlPath=none ")).toEqual(["ssh", "-F", "/etc/fc/ssh_config", "-o", "ControlPath=none", ...ARGS]);
});

test("a command sh would read otherwise (expansion, quotes, redirection, an assignment first) goes through sh", () => {
  for (const command of ["ssh -F ~/ssh_config", "ssh -F $HOME/c", "LC_ALL=C ssh", 'ssh -o "User x"', "ssh 2>/dev/null", "ssh -F a*", "x | ssh", "ssh\n-v"])
    expect(sshArgv(ARGS, command)).toEqual(["sh", "-c", `exec ${command} "$@"`, "ssh", ...ARGS]);
});

const kept = process.env.FLEETCOM_SSH;
afterEach(() => {
  if (kept === undefined) delete process.env.FLEETCOM_SSH;
  else process.env.FLEETCOM_SSH = kept;
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
