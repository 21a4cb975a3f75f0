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

test("a value past its range is clamped and says so", async () => {
  const r = await configWith("scrollback = 99999999999\n");
  expect(r.stderr).toBe(`fleetcom: warning: ${r.file}:1: scrollback: 99999999999 is more than the most, 100000 lines; using 100000\n`);
  expect(r.stdout).toMatch(/^scrollback +100000 +config\.toml:1$/m);
  const env = await configWith("", [], { FLEETCOM_SCROLLBACK: "250000" });
  expect(env.stderr).toBe("fleetcom: warning: FLEETCOM_SCROLLBACK: 250000 is more than the most, 100000 lines; using 100000\n");
});

test("bell = off and history = no unquoted, as tmux writes them, mean what they say, as the README lists the words", async () => {
  const r = await configWith("bell = off\nhistory = no\nconfirm = yes\n");
  expect(r.stderr).toBe("");
  expect(r.stdout).toMatch(/^bell +false +config\.toml:1$/m);
  expect(r.stdout).toMatch(/^history +false +config\.toml:2$/m);
  expect(r.stdout).toMatch(/^confirm +true +config\.toml:3$/m);
  // Any other bare word still gets the quoting hint.
  const other = await configWith("bell = loud\n");
  expect(other.stderr).toContain('a word needs quotes: bell = "loud"');
});

test("with the report's notify list, fleetcom config fits 100 columns: the long value goes under its key", async () => {
  const notify = [
    "ntfy+http://127.0.0.1:8765/ux4-fleet",
    "http://127.0.0.1:8765/hook",
    'echo "$(date +%T) $FLEETCOM_TASK_ID $FLEETCOM_TASK_LABEL $FLEETCOM_ATTENTION" >> /tmp/scratch/notify-cmd.log',
  ];
  const r = await configWith(`notify = ${JSON.stringify(notify)}\nidle_seconds = 5\nscrollback = 3000\n`);
  expect(r.stderr).toBe("");
  const lines = r.stdout.trimEnd().split("\n");
  expect(lines.filter((l) => l.length > 100)).toEqual([]);
  expect(r.stdout).toMatch(/^scrollback +3000 +config\.toml:3$/m);
  const at = lines.findIndex((l) => l.startsWith("notify"));
  expect(lines[at]).toMatch(/^notify +↓ +config\.toml:1$/);
  expect(lines.slice(at + 1, at + 3).map((l) => l.trim())).toEqual(notify.slice(0, 2));
});
