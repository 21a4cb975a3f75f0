// cli: the wall time of a whole client command, start-up included, as a user's shell sees it.
// `fleetcom ls` against a daemon with 10 tasks vs `tmux ls` against a server with 10 sessions
// (target: at most 2.5× tmux), and the floors under it: `fleetcom --version` vs `tmux -V` (the
// compiled binary starting and printing, nothing imported), and cli-ls-floor, a compiled Bun program
// that only connects to the same daemon, asks for ls and prints the count (bench/floor/ls.ts).
import { alternate, compareLine, compileFloor, makeSandbox, median, timeCommand } from "./common.ts";

const TASKS = 10;
const RUNS = 30;
const WARMUP = 3;

export async function run(): Promise<string[]> {
  const { root, fleetcom, tmux } = makeSandbox("cli");
  const floor = compileFloor("ls", root);
  for (let i = 1; i <= TASKS; i++) await fleetcom.start("sleep 3600");
  await tmux.start("s1", "sleep 3600");
  for (let i = 2; i <= TASKS; i++) await tmux.newSession(`s${i}`, "sleep 3600");
  const ls = await timeBoth(fleetcom.argv("ls"), tmux.argv("ls"), fleetcom.env);
  const version = await timeBoth(fleetcom.argv("--version"), tmux.argv("-V"), fleetcom.env);
  const floorLs = await timeBoth([floor], tmux.argv("ls"), fleetcom.env);
  return [
    compareLine("cli-ls", median(ls.fleetcom), median(ls.tmux)),
    compareLine("cli-version", median(version.fleetcom), median(version.tmux)),
    compareLine("cli-ls-floor", median(floorLs.fleetcom), median(floorLs.tmux)),
  ];
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
