// quality.md, "Permissions and trust": no environment value ever reaches disk.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

function filesUnder(dir: string): string[] {
  let out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out = out.concat(filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

test("a secret in the client's environment reaches the task but no file the daemon or a save writes", async () => {
  const secret = `s3cr3t-${crypto.randomUUID()}`;
  const env = { API_TOKEN: secret, FLEETCOM_SNAPSHOT_DEBOUNCE_MS: "50" };
  await fleet.cli(["ls"], { env });
  const id = Number((await fleet.cli(["run", "--", 'echo "len ${#API_TOKEN}"; sleep 300'], { env })).stdout);
  await until("task saw the secret", async () => (await fleet.peek(id)).includes(`len ${secret.length}`));
  await fleet.ok(["save", "work"]);
  const recovery = join(fleet.sandbox.config, "sessions", "recovery");
  await until("a snapshot", () => {
    try {
      return readdirSync(recovery).length > 0;
    } catch {
      return false;
    }
  });
  const written = [...filesUnder(fleet.sandbox.config), ...filesUnder(fleet.sandbox.runtime)].filter((f) => statSync(f).size < 64 << 20);
  expect(written.length).toBeGreaterThan(2);
  for (const file of written) expect(readFileSync(file, "latin1").includes(secret)).toBe(false);
});
