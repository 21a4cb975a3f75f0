// checkpoint: what a checkpoint at every prompt costs an agent in a 10,000-file repository. An agent
// (a stand-in that reads its input) runs in the repository; before each prompt one file is edited,
// then `send` types the prompt. `checkpoint-per-prompt` is the median time the agent waits for its
// prompt (the send request, start to answer) with a checkpoint taken on each, against the same agent
// outside any repository (no checkpoint): the checkpoint is started beside the prompt, never before
// it, so the two should match (target: at most 50 ms more). `checkpoint-snapshot-10000-files` is the
// checkpoint's own time, off the agent's path: from the send until a `checkpoints` request sent right
// behind it is answered (the daemon answers it once the snapshot is done).
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, median, openDaemonClient, poll, reportLine } from "./common.ts";

const FILES = 10_000;
const PER_DIR = 100;
const SAMPLES = 10;

export async function run(): Promise<string[]> {
  const sandbox = makeSandbox("checkpoint");
  const { root, env, fleetcom } = sandbox;
  const repo = join(root, "repo");
  makeRepository(repo, env);
  const outside = join(root, "outside");
  mkdirSync(outside);
  installAgent(root, env);

  const inRepo = (await fleetcom.run("run", "--cwd", repo, "--", "claude")).trim();
  const plain = (await fleetcom.run("run", "--cwd", outside, "--", "claude")).trim();
  const client = await openDaemonClient(sandbox);
  const count = async () => (await client.request("checkpoints", { task: { id: Number(inRepo) } })).checkpoints.length;
  await poll(async () => (await count()) >= 1, "checkpoint 0", 60_000, 50);

  const withCheckpoint: number[] = [];
  const without: number[] = [];
  const snapshot: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    writeFileSync(join(repo, "d0", `f${i % PER_DIR}.txt`), `edited ${i}\n`);
    const before = await count();
    const started = performance.now();
    // Asked right behind the send on the same connection: answered once the checkpoint is taken.
    const sent = client.request("send", { task: { id: Number(inRepo) }, text: `prompt ${i}`, enter: true }).then(() => performance.now() - started);
    const listed = count().then((n) => {
      if (n !== before + 1) throw new Error(`prompt ${i} took no checkpoint`);
      return performance.now() - started;
    });
    withCheckpoint.push(await sent);
    snapshot.push(await listed);

    const plainStarted = performance.now();
    await client.request("send", { task: { id: Number(plain) }, text: `prompt ${i}`, enter: true });
    without.push(performance.now() - plainStarted);
  }
  client.close();
  return [
    `checkpoint-per-prompt  fleetcom=${median(withCheckpoint).toFixed(1)}ms  without=${median(without).toFixed(1)}ms  added=${(median(withCheckpoint) - median(without)).toFixed(1)}ms`,
    reportLine(`checkpoint-snapshot-${FILES}-files`, median(snapshot)),
  ];
}

function makeRepository(repo: string, env: Record<string, string>): void {
  for (let d = 0; d < FILES / PER_DIR; d++) {
    mkdirSync(join(repo, `d${d}`), { recursive: true });
    for (let f = 0; f < PER_DIR; f++) writeFileSync(join(repo, `d${d}`, `f${f}.txt`), `file ${d}/${f}\n`);
  }
  const git = (...args: string[]) => {
    const r = Bun.spawnSync(["git", "-C", repo, ...args], {
      env: { ...env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" },
    });
    if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  };
  git("init", "-q");
  git("add", ".");
  git("commit", "-qm", "10,000 files");
}

/** `claude` first on PATH: a stand-in that takes no options and reads its input, so it counts as an agent. */
function installAgent(root: string, env: Record<string, string>): void {
  const bin = join(root, "agent-bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "claude"), `#!/bin/sh\n[ "$1" = --help ] && exit 0\nexec cat\n`);
  chmodSync(join(bin, "claude"), 0o755);
  env.PATH = `${bin}:${env.PATH}`;
}
