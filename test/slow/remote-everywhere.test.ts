// Remote tasks everywhere the local ones are (issue 40, item 13), over a real OpenSSH server and a
// second Unix user (test/harness/sshd.ts): the attach picker, in a terminal through tmux, lists
// `HOST:TASK` and attaches to one; shell completion lists them; `run` on a host from a project
// directory says where it runs; `hosts rm` ends the shared ssh connection at once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Fleet } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { type SshServer, sshdAvailable, startSshServer } from "../harness/sshd.ts";
import { shellWords, Tmux } from "../harness/tmux.ts";
import { sharingPack } from "../harness/packs.ts";

const canRun = sshdAvailable() && process.env.FLEETCOM_TEST_BIN !== undefined && Tmux.available();
let server: SshServer;
let fleet: Fleet;
let env: Record<string, string>;
let tmux: Tmux | null = null;

beforeAll(async () => {
  if (!canRun) return;
  fleet = new Fleet();
  server = await startSshServer(join(fleet.sandbox.root, "ssh"), fleet.sandbox.home);
  env = { ...fleet.env, FLEETCOM_SSH: `ssh -F ${server.config}`, FLEETCOM_HOST_TIMEOUT_MS: "60000" };
  await sharingPack(fleet.sandbox.home, () => ok(["hosts", "add", "remote1"]));
}, 120_000);

afterAll(async () => {
  if (!canRun) return;
  tmux?.kill();
  await cli(["--host", "remote1", "--kill", "--yes"]);
  await fleet.stop();
  await server.stop();
}, 60_000);

// fleetcom in the sandbox with the host's ssh settings (`env`), from its home unless told.
const cli = (args: string[], cwd?: string) => fleet.cli(args, { env, ...(cwd !== undefined && { cwd }) });
const ok = (args: string[], cwd?: string) => fleet.ok(args, { env, ...(cwd !== undefined && { cwd }) });

const masterAnswers = () =>
  Bun.spawnSync(["ssh", "-F", server.config, "-o", `ControlPath=${fleet.sandbox.runtime}/ssh-%C`, "-O", "check", "remote1"]).exitCode === 0;

test.skipIf(!canRun)(
  "run on a host from a project directory says where it runs; completion and the attach picker list HOST:TASK; hosts rm ends the connection",
  async () => {
    const project = join(fleet.sandbox.root, "proj");
    mkdirSync(project);
    const far = await cli(["--host", "remote1", "run", "--name", "far", "--", "echo far-ready; exec cat"], project);
    expect(far.code).toBe(0);
    const id = far.stdout.trim();
    expect(far.stderr).toBe(`fleetcom: remote1:${id} runs in ~ on remote1 (${server.home}), not in ${project}: --cwd DIR runs it in a directory there\n`);
    await ok(["run", "--name", "near", "--", "exec cat"]);

    const listed = (await ok(["completions", "--list", "tasks"])).split("\n");
    expect(listed).toEqual(expect.arrayContaining([`remote1:${id}\tfar`, `remote1:far\ttask remote1:${id}`, "1\tnear", "near\ttask 1"]));

    tmux = new Tmux(env, fleet.sandbox.root);
    tmux.window("pick", shellWords(fleetcomArgv(["attach"])), { cols: 100, rows: 20 });
    await tmux.waitFor("pick", "both hosts' tasks", (t) => t.includes(`remote1:${id} far`) && /\b1 near/.test(t));
    tmux.type("pick", "far");
    tmux.press("pick", "Enter");
    // The picker's rows carry each task's last line too, and the filter "far" already hides "1 near":
    // only the picker has a filter line, so attached is far-ready without one.
    await tmux.waitFor("pick", "the remote task's screen", (t) => t.includes("far-ready") && !t.includes("filter:"));
    tmux.press("pick", "C-\\");
    tmux.press("pick", "d");
    await tmux.waitForExit("pick");

    expect(masterAnswers()).toBe(true);
    await ok(["--host", "remote1", "--kill", "--yes"]);
    expect(await ok(["hosts", "rm", "remote1"])).toContain("removed host 'remote1'");
    // At once: no waiting out ControlPersist.
    expect(masterAnswers()).toBe(false);
  },
  180_000,
);
