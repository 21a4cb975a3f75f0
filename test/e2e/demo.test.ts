// The demo leaves no trace (issue 40, item 16): `make run`'s demo (scripts/demo.sh) runs in a
// temporary directory of its own, in a real terminal through tmux, and when `q` ends it nothing is
// left beside it in TMPDIR and the user's `recover --list` has no snapshot of it.
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { eachTestGetsAFleet, type Fleet } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { shellWords, Tmux } from "../harness/tmux.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));
let tmux: Tmux | null = null;
afterEach(() => tmux?.kill());

const DEMO = resolve(import.meta.dir, "../../scripts/demo.sh");

test.skipIf(!Tmux.available())("the demo runs in a directory of its own and leaves nothing in TMPDIR or in the user's snapshots", async () => {
  const tmp = join(fleet.sandbox.root, "tmp");
  mkdirSync(tmp);
  tmux = new Tmux({ ...fleet.env, TMPDIR: tmp }, fleet.sandbox.root);
  tmux.window("demo", `${shellWords(["sh", DEMO, ...fleetcomArgv([])])}; echo "demo ended $?"`, { cols: 100, rows: 30 });
  await tmux.waitFor("demo", "the demo's fleet", (t) => t.includes("clock") && t.includes("log tail") && /GET \/items\/\d+/.test(t));
  // While it runs, all it has is one directory in TMPDIR, the fake server's log inside it.
  const [own, ...others] = readdirSync(tmp);
  expect({ own: own?.startsWith("fleetcom-demo."), others }).toEqual({ own: true, others: [] });
  expect(readdirSync(join(tmp, own!))).toContain(`fleetcom-demo-${process.getuid!()}.log`);
  tmux.press("demo", "q");
  await tmux.waitFor("demo", "the question", (t) => t.includes("y/N"));
  tmux.press("demo", "y");
  await tmux.waitFor("demo", "the demo's end", (t) => t.includes("demo ended 0"));
  expect(readdirSync(tmp)).toEqual([]);
  expect(existsSync(join(fleet.sandbox.config, "sessions", "recovery"))).toBe(false);
  expect((await fleet.cli(["recover", "--list"])).stdout).toStartWith("no recovery snapshots");
});
