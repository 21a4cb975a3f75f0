// `fleetcom usage` across hosts, over a real OpenSSH server (docs/usage.md, docs/remote.md): a host's
// totals come from that host's daemon, which reads its own stores and its own saved sessions. Here a
// fake Claude runs on this machine, and the second Unix user (the "remote") has a saved session that
// resumes a conversation whose transcript is in its own home, as the fake Claude wrote it here.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chownSync, copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { installFakeAgents } from "../harness/agent-fakes.ts";
import { Fleet, until } from "../harness/fleet.ts";
import { type SshServer, sshdAvailable, startSshServer } from "../harness/sshd.ts";
import { sharingPack } from "../harness/packs.ts";

const canRun = sshdAvailable() && process.env.FLEETCOM_TEST_BIN !== undefined;
let server: SshServer;
let fleet: Fleet;
let env: Record<string, string>;

beforeAll(async () => {
  if (!canRun) return;
  fleet = new Fleet();
  installFakeAgents(fleet);
  server = await startSshServer(join(fleet.sandbox.root, "ssh"), fleet.sandbox.home);
  env = { ...fleet.env, FLEETCOM_SSH: `ssh -F ${server.config}`, FLEETCOM_HOST_TIMEOUT_MS: "60000" };
  await sharingPack(fleet.sandbox.home, () => ok(["hosts", "add", "remote1"]));
}, 120_000);

afterAll(async () => {
  if (!canRun) return;
  await cli(["--host", "remote1", "--kill", "--yes"]);
  await fleet.stop();
  await server.stop();
}, 60_000);

// fleetcom in the sandbox with the host's ssh settings (`env`).
const cli = (args: string[]) => fleet.cli(args, { env });
const ok = (args: string[]) => fleet.ok(args, { env });

/** Writes `text` at `path` under the remote user's home, owned by that user as its own files are. */
function remoteFile(path: string, write: (file: string) => void): void {
  const file = join(server.home, path);
  const dirs: string[] = [];
  for (let dir = dirname(file); dir !== server.home && dir.startsWith(server.home); dir = dirname(dir)) dirs.unshift(dir);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  write(file);
  for (const path of [...dirs, file]) chownSync(path, server.uid, server.uid);
}

test.skipIf(!canRun)(
  "each host's daemon totals its own conversations: this machine's task, and a conversation only the host's saved session resumes",
  async () => {
    const id = await fleet.run("claude");
    await until("the fake Claude to be ready", async () => (await fleet.peek(id)).includes(" ready"));
    await fleet.ok(["send", String(id), "first"]);
    await until("the first turn's usage", async () => (await fleet.task(id)).usage?.output === 100);
    const { conversation, cwd } = await fleet.task(id);
    const slug = (dir: string) => dir.replace(/[^A-Za-z0-9]/g, "-");
    const transcript = join(fleet.sandbox.home, ".claude", "projects", slug(cwd), `${conversation}.jsonl`);

    // The host's own store and saved session: the transcript as the fake Claude wrote it, in the host's home.
    remoteFile(join(".claude", "projects", slug(server.home), `${conversation}.jsonl`), (file) => copyFileSync(transcript, file));
    const session = { version: 1, name: "far", dirs: { [server.home]: [{ cmd: `claude --resume '${conversation}'`, group: "far" }] } };
    remoteFile(join(".config", "fleetcom", "sessions", "far.json"), (file) => writeFileSync(file, JSON.stringify(session), { mode: 0o600 }));

    const tokens = { input: 10, output: 100, cacheRead: 1000, cacheWrite: 500, total: 1610, cost: null };
    expect(JSON.parse(await ok(["usage", "--json"]))).toEqual([
      { agent: "claude", model: "claude-fake-1", host: null, tasks: 1, saved: 0, ...tokens },
      { agent: "claude", model: "claude-fake-1", host: "remote1", tasks: 0, saved: 1, ...tokens },
    ]);
    expect(JSON.parse(await ok(["--host", "remote1", "usage", "--json", "-g", "far"]))).toEqual([
      { agent: "claude", model: "claude-fake-1", host: "remote1", tasks: 0, saved: 1, ...tokens },
    ]);
  },
  180_000,
);
