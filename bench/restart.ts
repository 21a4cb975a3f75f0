// restart-latency: a supervised task exits; how long until its next run starts, fleetcom
// (`run --restart always`) against pm2 (`autorestart`, no exponential backoff) in the same run. Both run the same bash script, which appends bash's own clock ($EPOCHREALTIME)
// to a file as its first act and as its last act before exiting: the gap from one run's exit stamp
// to the next run's start stamp is the figure, read from the same file in the same way for both.
//
// Each sample is the first restart of a fresh task, and pm2's restart_delay is set to fleetcom's
// first delay (FIRST_BACKOFF_MS, the policy's rule: a crash is not restarted in a tight loop), so
// both are asked for the same thing and the ratio compares the supervisors, not their policies:
// fleetcom's backoff doubles with every restart that did not stay up, pm2's fixed delay does not.
// The overhead line takes that delay off each gap, leaving what the supervisor itself adds.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { FIRST_BACKOFF_MS } from "../src/task-restart.ts";
import { alternate, makeSandbox, median, onCleanup, percentile, poll, type Sandbox, versusLine } from "./common.ts";

const PM2_VERSION = "7.0.4";
/** pm2 goes here, beside the project's other tools, never into a global prefix. */
const PM2_PREFIX = resolve(import.meta.dir, "../.tools/bench");
const SAMPLES = 20;
/** pm2 waits what fleetcom's first restart waits, so the two do the same work. */
const PM2_RESTART_DELAY_MS = FIRST_BACKOFF_MS;

/**
 * The supervised task. Its first run prints and exits 1; the run after it prints and stays up, so
 * neither tool is asked for a second restart before the sample is read and the task removed.
 */
const TASK_SCRIPT = `# $1: the file this task's runs stamp
printf 'start %s\\n' "$EPOCHREALTIME" >> "$1"
echo RESTART-MARK
mapfile -t stamps < "$1"
if (( \${#stamps[@]} > 1 )); then exec sleep 3600; fi
printf 'exit %s\\n' "$EPOCHREALTIME" >> "$1"
exit 1
`;

export async function run(): Promise<string[]> {
  const pm2Bin = ensurePm2();
  const sandbox = makeSandbox("restart");
  // The task exits at once by design, and run would say so and exit 1 (run_check): not what is timed here.
  sandbox.env.FLEETCOM_RUN_CHECK = "0";
  const script = join(sandbox.root, "task.sh");
  writeFileSync(script, TASK_SCRIPT);
  const pm2 = startPm2(sandbox, pm2Bin);
  let sample = 0;
  const fleetcomSample = () => fleetcomRestart(sandbox, script, join(sandbox.root, `fleetcom-${++sample}.stamps`));
  const pm2Sample = () => pm2.restart(script, `pm2-${++sample}`);
  await fleetcomSample();
  await pm2Sample();
  const { fleetcom, tmux: pm2Gaps } = await alternate(SAMPLES, fleetcomSample, pm2Sample);
  return [
    versusLine("restart-latency", median(fleetcom), "pm2", median(pm2Gaps)),
    versusLine("restart-latency-p90", percentile(fleetcom, 90), "pm2", percentile(pm2Gaps, 90)),
    versusLine("restart-latency-overhead", median(fleetcom) - FIRST_BACKOFF_MS, "pm2", median(pm2Gaps) - PM2_RESTART_DELAY_MS),
  ];
}

/** One fresh `--restart always` task's first restart, in ms from its exit to its next start. */
async function fleetcomRestart({ fleetcom }: Sandbox, script: string, stamps: string): Promise<number> {
  const id = (await fleetcom.run("run", "--restart", "always", "--", `bash ${script} ${stamps}`)).trim();
  const gap = await restartGap(stamps);
  await fleetcom.run("kill", id);
  await fleetcom.remove(id);
  return gap;
}

/** pm2's daemon in the sandbox (its own PM2_HOME), killed at cleanup. */
function startPm2(sandbox: Sandbox, pm2Bin: string) {
  const env = { ...sandbox.env, PM2_HOME: join(sandbox.root, "pm2") };
  const pm2 = (...args: string[]) => runQuiet([pm2Bin, ...args], env);
  onCleanup(() => Bun.spawnSync([pm2Bin, "kill"], { env, stdout: "ignore", stderr: "ignore" }));
  return {
    /** One fresh app's first restart, in ms from its exit to its next start. */
    async restart(script: string, name: string): Promise<number> {
      const stamps = join(sandbox.root, `${name}.stamps`);
      const ecosystem = join(sandbox.root, `${name}.json`);
      const app = { name, script, interpreter: "bash", args: [stamps], autorestart: true, restart_delay: PM2_RESTART_DELAY_MS };
      writeFileSync(ecosystem, JSON.stringify({ apps: [app] }));
      await pm2("start", ecosystem);
      const gap = await restartGap(stamps);
      await pm2("delete", name);
      return gap;
    },
  };
}

/** Waits for the task's second start; the gap between the first run's exit stamp and it, in ms. */
async function restartGap(stamps: string): Promise<number> {
  const lines = await poll(
    () => {
      const text = existsSync(stamps) ? readFileSync(stamps, "utf8") : "";
      const complete = text.split("\n").filter((line) => line.startsWith("start ") || line.startsWith("exit "));
      return complete.length >= 3 && complete;
    },
    `the second run of ${stamps}`,
    30_000,
    5,
  );
  const [firstStart, exit, secondStart] = lines;
  if (!firstStart?.startsWith("start ") || !exit?.startsWith("exit ") || !secondStart?.startsWith("start ")) {
    throw new Error(`unexpected stamps in ${stamps}: ${lines.join(" | ")}`);
  }
  return stampMs(secondStart) - stampMs(exit);
}

/** `start 1733350000.123456` → epoch ms, without losing the microseconds to a double's precision. */
function stampMs(line: string): number {
  const [seconds, micros] = line.split(" ")[1]!.split(".");
  return Number(seconds) * 1000 + Number(micros) / 1000;
}

/** pm2 from npm at a pinned version, in a private prefix; installed when missing or another version. */
function ensurePm2(): string {
  const bin = join(PM2_PREFIX, "node_modules/.bin/pm2");
  if (installedPm2Version() === PM2_VERSION && existsSync(bin)) return bin;
  process.stderr.write(`installing pm2@${PM2_VERSION} into ${PM2_PREFIX}\n`);
  const argv = ["npm", "install", "--prefix", PM2_PREFIX, "--no-audit", "--no-fund", "--save-exact", `pm2@${PM2_VERSION}`];
  const result = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${argv.join(" ")} failed: ${result.stderr.toString().trim()}`);
  return bin;
}

function installedPm2Version(): string | undefined {
  try {
    return JSON.parse(readFileSync(join(PM2_PREFIX, "node_modules/pm2/package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

async function runQuiet(argv: string[], env: Record<string, string>): Promise<void> {
  const proc = Bun.spawn(argv, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}: ${(err || out).trim()}`);
}
