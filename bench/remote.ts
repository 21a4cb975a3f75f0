// remote-ls: listing a fleet on another machine over ssh (docs/remote.md). A real sshd on
// 127.0.0.1 and a second local user as the remote (test/harness/sshd.ts); `fleetcom --host remote1
// ls` with its ssh connection shared through ControlMaster (the first call opened it) against
// `ssh remote1 tmux ls` through a ControlMaster of its own, each with 10 tasks or sessions there
// (target: at most 1.5× tmux). Needs root and /usr/sbin/sshd; without them the line says skipped.
import { join } from "node:path";
import { sshdAvailable, startSshServer } from "../test/harness/sshd.ts";
import { alternate, compareLine, FLEETCOM_BIN, makeSandbox, median, runCommand, timeCommand } from "./common.ts";

const TASKS = 10;
const RUNS = 30;
const WARMUP = 3;

export async function run(): Promise<string[]> {
  if (!sshdAvailable()) return ["remote-ls  skipped: needs root, /usr/sbin/sshd and useradd"];
  const { root, env: base } = makeSandbox("remote");
  const server = await startSshServer(join(root, "ssh"), base.HOME!);
  const env = { ...base, FLEETCOM_SSH: `ssh -F ${server.config}` };
  const shared = ["-o", "ControlMaster=auto", "-o", `ControlPath=${root}/tmux-%C`, "-o", "ControlPersist=60"];
  const ssh = (command: string) => ["ssh", "-F", server.config, ...shared, "remote1", "--", command];
  try {
    process.stderr.write("installing fleetcom on the remote user…\n");
    await runCommand([FLEETCOM_BIN, "hosts", "add", "remote1"], env);
    for (let i = 1; i <= TASKS; i++) await runCommand([FLEETCOM_BIN, "--host", "remote1", "run", "--", "sleep 3600"], env);
    await runCommand(ssh("tmux -L bench -f /dev/null new -d -s s1 sleep 3600"), env);
    for (let i = 2; i <= TASKS; i++) await runCommand(ssh(`tmux -L bench new -d -s s${i} sleep 3600`), env);
    const fleetcom = () => timeCommand([FLEETCOM_BIN, "--host", "remote1", "ls"], env);
    const tmux = () => timeCommand(ssh("tmux -L bench ls"), env);
    await alternate(WARMUP, fleetcom, tmux);
    const samples = await alternate(RUNS, fleetcom, tmux);
    return [compareLine("remote-ls", median(samples.fleetcom), median(samples.tmux))];
  } finally {
    await runCommand([FLEETCOM_BIN, "--host", "remote1", "--kill", "--yes"], env).catch(() => {});
    Bun.spawnSync(["ssh", "-F", server.config, ...shared, "-O", "exit", "remote1"], { stdout: "ignore", stderr: "ignore" });
    Bun.spawnSync(["ssh", "-F", server.config, "-o", `ControlPath=${base.FLEETCOM_RUNTIME_DIR}/ssh-%C`, "-O", "exit", "remote1"], {
      stdout: "ignore",
      stderr: "ignore",
    });
    await server.stop();
  }
}
