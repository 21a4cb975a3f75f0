// Settings speak up (issue 40, items 2 and 11), as `fleetcom config` shows them: a key given twice
// says which line is in effect; a value clamped to its range says so; `bell = off` unquoted, as tmux
// writes it, is answered with the quoting hint; the table fits 100 columns with a long notify list.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, runFleetcom } from "../harness/helpers.ts";

const sandbox = makeSandbox();
afterAll(() => sandbox.cleanup());
let dirs = 0;

/** `fleetcom config` with `text` as its config.toml (a directory of its own each time); no daemon runs. */
async function configWith(text: string, args: string[] = [], env: Record<string, string> = {}) {
  const dir = join(sandbox.root, `config-${++dirs}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "config.toml"), text);
  const r = await runFleetcom(["config", ...args], { env: { ...sandbox.env, FLEETCOM_CONFIG_DIR: dir, ...env }, cwd: sandbox.home });
  return { ...r, file: join(dir, "config.toml") };
}

test("a key given twice: the warning says the first line is in effect, and the table agrees", async () => {
  const r = await configWith("scrollback = 5000\nscrollback = 10\n");
  expect(r.code).toBe(0);
  expect(r.stderr).toBe(`fleetcom: warning: ${r.file}:2: scrollback: given again; line 1 is in effect (scrollback = 5000), this line is ignored\n`);
  expect(r.stdout).toMatch(/^scrollback +5000 +config\.toml:1$/m);
});
