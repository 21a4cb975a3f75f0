// The ssh command line (client-ssh.ts): the user's FLEETCOM_SSH / ssh_command read by sh's rules,
// without starting sh when it is plain words; and the record of a forward, used only as it was made.
import { afterEach, expect, test } from "bun:test";
import { forwardRecord, forwardTarget, type RemoteHost, sshArgv } from "../../src/client-ssh.ts";

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
