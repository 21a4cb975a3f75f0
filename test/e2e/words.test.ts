// Words that mean what they say (issue 40, item 9): a y/N answer is one key on the command line as
// in the dashboard; `sessions rm` asks on a terminal, as the picker's Ctrl-D does; `--kill` with
// hosts added says it stops this machine's tasks and that theirs keep running; `save --help` says it
// replaces a session of the same name; a bell reads "asked for attention".
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

test("--kill's y/N takes one key: y alone, with no Enter, stops the daemon", async () => {
  await fleet.run("sleep 3600");
  const daemon = fleet.daemonPid();
  const client = fleet.spawnClient(["--kill"]);
  await client.waitForScreen("the question", (s) => s.includes("stop 1 task and the daemon? y/N"));
  client.write("y");
  expect(await client.proc.exited).toBe(0);
  expect(client.output).toContain(`stopped daemon ${daemon}`);
});

test("sessions rm asks on a terminal, one key: n keeps the session, y deletes it; a script is not asked", async () => {
  const dir = join(fleet.sandbox.config, "sessions");
  mkdirSync(dir, { recursive: true });
  for (const name of ["work", "other"]) writeFileSync(join(dir, `${name}.json`), JSON.stringify({ version: 1, name, dirs: { "/tmp": ["true"] } }));
  const declined = fleet.spawnClient(["sessions", "rm", "work"]);
  await declined.waitForScreen("the question", (s) => s.includes(`delete session 'work' (${join(dir, "work.json")})? y/N`));
  declined.write("n");
  expect(await declined.proc.exited).toBe(1);
  expect(existsSync(join(dir, "work.json"))).toBe(true);
  const accepted = fleet.spawnClient(["sessions", "rm", "work"]);
  await accepted.waitForScreen("the question", (s) => s.includes("delete session 'work'"));
  accepted.write("y");
  expect(await accepted.proc.exited).toBe(0);
  expect(existsSync(join(dir, "work.json"))).toBe(false);
  expect((await fleet.cli(["sessions", "rm", "other"])).code).toBe(0);
  expect(existsSync(join(dir, "other.json"))).toBe(false);
});

test("--kill with a host added says it stops this machine's tasks, and that the host's keep running", async () => {
  mkdirSync(fleet.sandbox.config, { recursive: true });
  writeFileSync(join(fleet.sandbox.config, "config.toml"), '[hosts.gpu1]\nssh = "gpu1"\nhome = "/home/me"\n');
  await fleet.run("sleep 3600");
  const asked = fleet.spawnClient(["--kill"]);
  await asked.waitForScreen("the question", (s) => s.includes("stop this machine's 1 task and its daemon (the tasks on gpu1 keep running)? y/N"));
  asked.write("n");
  expect(await asked.proc.exited).toBe(1);
  const r = await fleet.cli(["--kill", "--yes"]);
  expect(r.stdout).toMatch(/^stopped daemon \d+ and this machine's tasks; the tasks on gpu1 keep running \(fleetcom --host NAME --kill stops them\)\n$/);
});

test("save --help says a session of the same name is replaced; a bell reads 'asked for attention' in ls", async () => {
  const help = (await fleet.ok(["save", "--help"])).replace(/\s+/g, " ");
  expect(help).toContain("replacing a session saved under that NAME");
  expect(help).not.toContain("name collisions)");
  const id = await fleet.run("printf 'ring\\a\\n'; exec sleep 3600");
  await until("the bell heard", async () => (await fleet.task(id)).attention?.state === "bell");
  expect(await fleet.ok(["ls"])).toMatch(new RegExp(`^${id}\\s+!.*asked for attention`, "m"));
});
