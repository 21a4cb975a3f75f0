// cli: the wall time of a whole client command, start-up included, as a user's shell sees it.
// `fleetcom ls` against a daemon with 10 tasks vs `tmux ls` against a server with 10 sessions
// (target: at most 3× tmux), and `fleetcom --version` vs `tmux -V` for the bare start-up cost.
import { alternate, compareLine, makeSandbox, median, timeCommand } from "./common.ts";

const TASKS = 10;
const RUNS = 30;
const WARMUP = 3;

export async function run(): Promise<string[]> {
  const { fleetcom, tmux } = makeSandbox("cli");
  for (let i = 1; i <= TASKS; i++) await fleetcom.start("sleep 3600");
  await tmux.start("s1", "sleep 3600");
  for (let i = 2; i <= TASKS; i++) await tmux.newSession(`s${i}`, "sleep 3600");
  const ls = await timeBoth(fleetcom.argv("ls"), tmux.argv("ls"), fleetcom.env);
  const version = await timeBoth(fleetcom.argv("--version"), tmux.argv("-V"), fleetcom.env);
  return [compareLine("cli-ls", median(ls.fleetcom), median(ls.tmux)), compareLine("cli-version", median(version.fleetcom), median(version.tmux))];
}

async function timeBoth(fleetcomArgv: string[], tmuxArgv: string[], env: Record<string, string>) {
  await alternate(
    WARMUP,
    () => timeCommand(fleetcomArgv, env),
    () => timeCommand(tmuxArgv, env),
  );
  return alternate(
    RUNS,
    () => timeCommand(fleetcomArgv, env),
    () => timeCommand(tmuxArgv, env),
  );
}
