// Every client command that takes a TASK ends with its documented exit code when the TASK is unknown
// or ambiguous (cli.md: 1, the error listing the candidates; 2 for attach without a terminal), and
// ends at once: `peek` once printed the error and then hung forever with its socket open. Each run
// has a kill-guard, so a hang fails the test instead of stalling it.
import { beforeAll, afterAll, describe, expect, test } from "bun:test";
import { fleetcomArgv, type RunResult } from "../harness/helpers.ts";
import { Fleet, PtyClient } from "../harness/fleet.ts";

// Generous on a loaded machine: a command that answers does so in well under a second.
const KILL_GUARD_MS = 5_000;

let fleet: Fleet;
beforeAll(async () => {
  fleet = new Fleet();
  await fleet.run("sleep 600", ["--name", "api-one"]);
  await fleet.run("sleep 600", ["--name", "api-two"]);
});
afterAll(() => fleet.stop());

/** Runs the CLI without a terminal; a run still going after the guard is killed and reported as a hang. */
async function guarded(args: string[]): Promise<RunResult & { hung: boolean }> {
  const proc = Bun.spawn(fleetcomArgv(args), { env: fleet.env, cwd: fleet.sandbox.home, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let hung = false;
  const guard = setTimeout(() => {
    hung = true;
    proc.kill("SIGKILL");
  }, KILL_GUARD_MS);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(guard);
  return { code, stdout, stderr, hung };
}

const UNKNOWN = { ref: "nosuch", error: "fleetcom: no task matches 'nosuch' (tasks: 1 api-one, 2 api-two)\n" };
const AMBIGUOUS = { ref: "api", error: "fleetcom: 'api' matches 2 tasks: 1 api-one, 2 api-two\n" };

// Each command with the TASK in its place and whatever else it needs.
const COMMANDS: [string, (task: string) => string[]][] = [
  ["peek", (t) => ["peek", t]],
  ["peek -f", (t) => ["peek", "-f", t]],
  ["send", (t) => ["send", t, "hello"]],
  ["wait", (t) => ["wait", t, "--for", "exit"]],
  ["kill", (t) => ["kill", t]],
  ["rm", (t) => ["rm", t]],
  ["rerun", (t) => ["rerun", t]],
  ["restart", (t) => ["restart", t]],
  ["rename", (t) => ["rename", t, "new name"]],
  ["group", (t) => ["group", t, "g"]],
  ["tag", (t) => ["tag", t]],
];

describe("an unknown or ambiguous TASK ends the command at once with its exit code", () => {
  for (const [label, args] of COMMANDS) {
    for (const { ref, error } of [UNKNOWN, AMBIGUOUS]) {
      test(`${label} ${ref}: exit 1, the error listing the candidates`, async () => {
        expect(await guarded(args(ref))).toEqual({ code: 1, stdout: "", stderr: error, hung: false });
      });
    }
  }

  test("attach without a terminal: exit 2, it needs one (whatever the TASK)", async () => {
    for (const { ref } of [UNKNOWN, AMBIGUOUS]) {
      expect(await guarded(["attach", ref])).toEqual({ code: 2, stdout: "", stderr: "fleetcom: attach needs a terminal\n", hung: false });
    }
  });

  test("attach in a terminal: exit 1 with the error, the terminal given back", async () => {
    for (const { ref, error } of [UNKNOWN, AMBIGUOUS]) {
      const client = new PtyClient(fleetcomArgv(["attach", ref]), fleet.env, fleet.sandbox.home, { cols: 120, rows: 30 });
      const guard = setTimeout(() => client.kill(), KILL_GUARD_MS);
      const code = await client.proc.exited;
      clearTimeout(guard);
      await client.waitForOutput(error.trimEnd());
      expect({ ref, code, signal: client.proc.signalCode }).toEqual({ ref, code: 1, signal: null });
      // Left the alternate screen it entered for the task.
      expect(client.output.lastIndexOf("\x1b[?1049l")).toBeGreaterThan(client.output.lastIndexOf("\x1b[?1049h"));
    }
  });

  test("and the fleet is as it was", async () => {
    const tasks = await fleet.ls();
    expect(tasks.map((t) => ({ id: t.id, name: t.name, group: t.group, state: t.state, tagged: t.tagged }))).toEqual([
      { id: 1, name: "api-one", group: null, state: "running", tagged: false },
      { id: 2, name: "api-two", group: null, state: "running", tagged: false },
    ]);
  });
});
