// Every host's waits, pushed from here (docs/notify.md): the local daemon links to an added host (a
// real sshd and a second Unix user, test/harness/sshd.ts) and pushes its task's wait through the
// local destinations, once, named by host.
import { afterAll, beforeAll, expect } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { remoteTest, type SshServer, sshdAvailable, startSshServer } from "../harness/sshd.ts";

const canRun = sshdAvailable() && process.env.FLEETCOM_TEST_BIN !== undefined;

let server: SshServer;
let fleet: Fleet;
let env: Record<string, string>;
let hookServer: ReturnType<typeof Bun.serve>;
const posts: { path: string; body: string }[] = [];

beforeAll(async () => {
  if (!canRun) return;
  fleet = new Fleet();
  server = await startSshServer(join(fleet.sandbox.root, "ssh"), fleet.sandbox.home);
  hookServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      posts.push({ path: new URL(request.url).pathname, body: await request.text() });
      return new Response("ok");
    },
  });
  env = {
    ...fleet.env,
    FLEETCOM_SSH: `ssh -F ${server.config}`,
    FLEETCOM_HOST_TIMEOUT_MS: "60000",
    // Every transition at once, and a host without tasks asked again soon: the test cannot wait a minute.
    FLEETCOM_PUSH_INTERVAL_MS: "0",
    FLEETCOM_HOST_RECHECK_MS: "300",
  };
}, 60_000);

afterAll(async () => {
  if (!canRun) return;
  await cli(["--host", "remote1", "--kill", "--yes"]);
  await cli(["--kill", "--yes"]);
  hookServer.stop(true);
  await fleet.stop();
  await server.stop();
});

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(fleetcomArgv(args), { env, cwd: fleet.sandbox.home, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

async function ok(args: string[]): Promise<string> {
  const r = await cli(args);
  if (r.code !== 0) throw new Error(`fleetcom ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

remoteTest(
  "a host's waiting task reaches this machine's webhook once, named by its host",
  async () => {
    mkdirSync(fleet.sandbox.config, { recursive: true });
    writeFileSync(join(fleet.sandbox.config, "config.toml"), `notify = "http://127.0.0.1:${hookServer.port}/hook"\n`);
    await ok(["hosts", "add", "remote1"]);
    // This machine's daemon first: it links to remote1 from its start.
    await ok(["ls"]);
    const waiting = Number((await ok(["--host", "remote1", "run", "--name", "claude", "--", "printf '\\a'; sleep 3600"])).trim());
    await until("the host's wait at the webhook", () => posts.length >= 1, 60_000);
    const first = JSON.parse(posts[0]!.body);
    expect(first).toMatchObject({ host: "remote1", task: { id: waiting, name: `remote1:${waiting} claude` }, state: "input" });
    // A second wait there, after the first: its push is the mark that the first was not sent again.
    const later = Number((await ok(["--host", "remote1", "run", "--name", "later", "--", "sleep 0.5; printf '\\a'; sleep 3600"])).trim());
    await until("the second wait", () => posts.some((p) => JSON.parse(p.body).task.id === later), 60_000);
    expect(posts.map((p) => JSON.parse(p.body).task.name)).toEqual([`remote1:${waiting} claude`, `remote1:${later} later`]);
  },
  180_000,
);
