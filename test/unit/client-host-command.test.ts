// A host's own fleetcom run there (client-host-command.ts), with a stand-in for ssh (FLEETCOM_SSH):
// bounded until its first word on stdout, then not; ssh's failure one line naming the host.
import { afterAll, afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { answerBoundMs, LONG_ANSWER_MS, runOnHost } from "../../src/client-host-command.ts";
import type { RemoteHost } from "../../src/client-ssh.ts";
import { UserError } from "../../src/errors.ts";
import { VERSION } from "../../src/version.ts";

const dir = mkdtempSync(join(tmpdir(), "fleetcom-host-command-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const kept = process.env.FLEETCOM_SSH;
afterEach(() => {
  if (kept === undefined) delete process.env.FLEETCOM_SSH;
  else process.env.FLEETCOM_SSH = kept;
});

/** The table says what the user's ssh config sets, so no `ssh -G` is asked of the stand-in. */
const gpu1: RemoteHost = { name: "gpu1", ssh: "gpu1", home: "/home/me", share: false, timeout: true };

/** FLEETCOM_SSH set to a shell script standing in for ssh. */
function sshStandIn(name: string, script: string): void {
  const file = join(dir, name);
  writeFileSync(file, script);
  process.env.FLEETCOM_SSH = `sh ${file}`;
}

async function failure(run: Promise<number>): Promise<{ message: string; exitCode: number }> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof UserError)) throw new Error(`expected a UserError, got ${String(error)}`);
  return { message: error.message, exitCode: error.exitCode };
}

test("the first word's bound: the one-host bound for a quick command, ten minutes (or that bound when longer) for the others", () => {
  expect(answerBoundMs(true, {})).toBe(30_000);
  expect(answerBoundMs(true, { FLEETCOM_HOST_TIMEOUT_MS: "3000" })).toBe(3_000);
  expect(answerBoundMs(false, {})).toBe(LONG_ANSWER_MS);
  expect(answerBoundMs(false, { FLEETCOM_HOST_TIMEOUT_MS: "3000" })).toBe(LONG_ANSWER_MS);
  expect(answerBoundMs(false, { FLEETCOM_HOST_TIMEOUT_MS: String(LONG_ANSWER_MS * 2) })).toBe(LONG_ANSWER_MS * 2);
});

test("a host that says nothing within the bound: ssh is ended and one line names the host and the command, exit 3", async () => {
  sshStandIn("silent", "echo 'Warning: Permanently added gpu1' >&2\nexec sleep 60\n");
  expect(await failure(runOnHost(gpu1, ["status"], 200))).toEqual({
    message: "gpu1 is unreachable: no answer within 0.2 s (ssh, or fleetcom status there)",
    exitCode: 3,
  });
});

test("ssh failing before any answer is one line: its last reason, naming the host", async () => {
  sshStandIn("refused", "echo 'Connection timed out during banner exchange' >&2\necho 'Connection to gpu1 port 22 timed out' >&2\nexit 255\n");
  expect(await failure(runOnHost(gpu1, ["load", "x"], 60_000))).toEqual({
    message: "gpu1 is unreachable: Connection to gpu1 port 22 timed out",
    exitCode: 3,
  });
});

test("once the command there has said its first word, the bound no longer applies: its own exit status is returned", async () => {
  // The stand-in answers at once, then stays past the bound (a question waiting for its person).
  sshStandIn("answers", "echo 'the command there answered'\nsleep 3\nexit 4\n");
  expect(await runOnHost(gpu1, ["--kill"], 1_000)).toBe(4);
});

test("the argv given to ssh: the remote binary by its path, each word quoted, with ConnectTimeout", async () => {
  const seen = join(dir, "argv");
  sshStandIn("records", `printf '%s\\n' "$@" > ${seen}\necho ok\n`);
  expect(await runOnHost(gpu1, ["sessions", "rm", "it's"], 5_000)).toBe(0);
  const argv = (await Bun.file(seen).text()).trimEnd().split("\n");
  const command = `'/home/me/.local/share/fleetcom/${VERSION}/fleetcom' 'sessions' 'rm' 'it'\\''s'`;
  expect(argv).toEqual(["-o", "BatchMode=yes", "-T", "-o", "ConnectTimeout=30", "--", "gpu1", command]);
});
