// The ssh command line (client-ssh.ts): the user's FLEETCOM_SSH / ssh_command read by sh's rules,
// without starting sh when it is plain words.
import { expect, test } from "bun:test";
import { sshArgv } from "../../src/client-ssh.ts";

const ARGS = ["-T", "--", "gpu1", "true"];

test("an ssh command of plain words runs as those words", () => {
  expect(sshArgv(ARGS, "ssh")).toEqual(["ssh", ...ARGS]);
  expect(sshArgv(ARGS, " ssh -F /etc/fc/ssh_config  -o ControlPath=none ")).toEqual(["ssh", "-F", "/etc/fc/ssh_config", "-o", "ControlPath=none", ...ARGS]);
});

test("a command sh would read otherwise (expansion, quotes, redirection, an assignment first) goes through sh", () => {
  for (const command of ["ssh -F ~/ssh_config", "ssh -F $HOME/c", "LC_ALL=C ssh", 'ssh -o "User x"', "ssh 2>/dev/null", "ssh -F a*", "x | ssh", "ssh\n-v"])
    expect(sshArgv(ARGS, command)).toEqual(["sh", "-c", `exec ${command} "$@"`, "ssh", ...ARGS]);
});
