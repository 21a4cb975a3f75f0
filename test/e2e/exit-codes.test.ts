// Exit codes reach scripts (issue 40, item 3): `wait --for exit` and `logs -f` end with the task's
// code, as shell `wait` and `docker wait` do (of several tasks followed, the first non-zero), and
// `logs -f` whose daemon stops under it says so and exits 3. Both say so in --help.
import { expect, test } from "bun:test";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

test("wait --for exit ends with the task's code, 128 + n for a signal, and --any with the code of the one it prints", async () => {
  const four = await fleet.run("read go; exit 4");
  const waiting = fleet.cli(["wait", String(four), "--for", "exit"]);
  await until("the task reading", async () => (await fleet.task(four)).state === "running");
  await fleet.ok(["send", String(four), "go"]);
  expect(await waiting).toEqual({ code: 4, stdout: "", stderr: "" });
  // A task already ended answers at once, with the same code.
  expect((await fleet.cli(["wait", String(four), "--for", "exit"])).code).toBe(4);
  const termed = await fleet.run("kill -TERM $$");
  await fleet.waitForExit(termed);
  expect((await fleet.cli(["wait", String(termed), "--for", "exit"])).code).toBe(143);
  const zero = await fleet.run("true");
  await fleet.waitForExit(zero);
  expect((await fleet.cli(["wait", String(zero), "--for", "exit"])).code).toBe(0);
  const any = await fleet.cli(["wait", "--any", "--for", "exit"]);
  expect({ code: any.code, id: any.stdout.trim() }).toEqual({ code: 4, id: String(four) });
});

test("wait for several tasks --for exit waits for every one and ends with the first non-zero code in the order given", async () => {
  const zero = await fleet.run("read go; exit 0", ["--name", "zero"]);
  const five = await fleet.run("read go; exit 5", ["--name", "five"]);
  const three = await fleet.run("read go; exit 3", ["--name", "three"]);
  const waiting = fleet.cli(["wait", "zero", "three", "five", "--for", "exit"]);
  // Every task must end first: the last to go is the first named.
  for (const id of [five, three, zero]) await fleet.ok(["send", String(id), "go"]);
  expect(await waiting).toEqual({ code: 3, stdout: "", stderr: "" });
  expect((await fleet.cli(["wait", "five", "three", "--for", "exit"])).code).toBe(5);
  expect((await fleet.cli(["wait", "zero", "zero", "--for", "exit"])).code).toBe(0);
});

test("logs -f ends with the task's code; of several, the first non-zero; a finished task's at once", async () => {
  const five = await fleet.run("echo hello; read go; exit 5", ["--name", "five"]);
  await until("hello", async () => (await fleet.peek(five)).includes("hello"));
  const following = fleet.cli(["logs", "-f", "five"]);
  await fleet.ok(["send", "five", "go"]);
  expect(await following).toEqual({ code: 5, stdout: "hello\ngo\n", stderr: "" });
  expect((await fleet.cli(["logs", "-f", "five"])).code).toBe(5);
  expect((await fleet.cli(["logs", "five"])).code).toBe(0);
  const ok = await fleet.run("exit 0", ["--name", "ok"]);
  const six = await fleet.run("exit 6", ["--name", "six"]);
  await fleet.waitForExit(ok);
  await fleet.waitForExit(six);
  expect((await fleet.cli(["logs", "-f", "ok", "six", "five"])).code).toBe(6);
  expect((await fleet.cli(["logs", "-f", "ok"])).code).toBe(0);
});

test("logs -f whose daemon stops under it says so in a line and exits 3", async () => {
  const id = await fleet.run("echo up; exec sleep 3600");
  await until("up", async () => (await fleet.peek(id)).includes("up"));
  const follower = Bun.spawn(fleetcomArgv(["logs", "-f", String(id)]), { env: fleet.env, cwd: fleet.sandbox.home, stdout: "pipe", stderr: "pipe" });
  // The follower is following once it has printed the line there is.
  const reader = follower.stdout.getReader();
  const first = await reader.read();
  expect(new TextDecoder().decode(first.value)).toBe("up\n");
  await fleet.ok(["--kill", "--yes"]);
  const rest = async (): Promise<string> => {
    const next = await reader.read();
    return next.done ? "" : new TextDecoder().decode(next.value) + (await rest());
  };
  const [more, stderr, code] = await Promise.all([rest(), new Response(follower.stderr).text(), follower.exited]);
  expect({ code, more, stderr }).toEqual({ code: 3, more: "", stderr: "fleetcom: logs: the daemon stopped; no more lines will come\n" });
});

test("wait and logs say in --help that they end with the task's code", async () => {
  expect((await fleet.ok(["wait", "--help"])).replace(/\s+/g, " ")).toContain("--for exit ends with the task's exit code (of several, the first non-zero");
  expect((await fleet.ok(["logs", "--help"])).replace(/\s+/g, " ")).toContain(
    "then exit with its code (of several, the first non-zero; 3 if the daemon stops)",
  );
});
