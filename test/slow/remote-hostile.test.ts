// Hosts that lie or do not answer (docs/security.md, round 4): a real OpenSSH server whose key for
// the alias `hostile` forces test/harness/hostile-host.py, which answers `hosts add`'s probe and the
// bridge as ~/hostile_mode says (a probe that never ends, a home of megabytes, gigabytes of output,
// a 200 MiB frame, a malformed welcome, escape sequences, silence), under fleetcom's own
// ControlPersist master; and remote1, the real fleetcom there, with its daemon stopped. Each command
// must end with one line naming the host, print nothing raw, and keep its memory small.
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { chownSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { remoteTest, type SshServer, sshdAvailable, startSshServer } from "../harness/sshd.ts";
import { sharingPack } from "../harness/packs.ts";

const canRun = sshdAvailable() && process.env.FLEETCOM_TEST_BIN !== undefined;

let server: SshServer;
let fleet: Fleet;
let env: Record<string, string>;
let configToml = "";

/** Far above a client's own few tens of MB, far below what the hostile answers cost before: 650 MB and more. */
const SMALL_RSS_BYTES = 200 * 1024 * 1024;

beforeAll(async () => {
  if (!canRun) return;
  fleet = new Fleet();
  server = await startSshServer(join(fleet.sandbox.root, "ssh"), fleet.sandbox.home);
  const script = join(server.home, "hostile-host.py");
  copyFileSync(join(import.meta.dir, "../harness/hostile-host.py"), script);
  chownSync(script, server.uid, -1);
  server.addForcedCommandAlias("hostile", `/usr/bin/python3 ${script}`);
  env = { ...fleet.env, FLEETCOM_SSH: `ssh -F ${server.config}` };
  // The hostile host as `hosts add` would have saved it, had it told the truth.
  configToml = join(fleet.sandbox.config, "config.toml");
  mkdirSync(fleet.sandbox.config, { recursive: true, mode: 0o700 });
  writeFileSync(configToml, `scrollback = 1234\n\n[hosts.hostile]\nssh = "hostile"\nhome = ${JSON.stringify(server.home)}\nshare = true\n`);
}, 60_000);

afterAll(async () => {
  if (!canRun) return;
  for (const alias of ["hostile", "remote1"])
    Bun.spawnSync(["ssh", "-F", server.config, "-o", `ControlPath=${fleet.sandbox.runtime}/ssh-%C`, "-O", "exit", alias], {
      stdout: "ignore",
      stderr: "ignore",
    });
  await fleet.stop();
  await server.stop();
});

function hostileMode(mode: string): void {
  const file = join(server.home, "hostile_mode");
  writeFileSync(file, `${mode}\n`);
  chownSync(file, server.uid, -1);
}

/** The CLI run to its end: its output, exit code, and the most memory it held (maxrss). */
async function cli(args: string[], extra: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string; maxRss: number }> {
  const proc = Bun.spawn(fleetcomArgv(args), { env: { ...env, ...extra }, cwd: fleet.sandbox.home, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr, maxRss: proc.resourceUsage()?.maxRSS ?? Number.POSITIVE_INFINITY };
}

/** No byte of a terminal control: ESC, BEL, C1 (CSI, OSC) and the bidi override. */
const RAW_CONTROL = /[\x07\x1b\x9b\x9d\u202e]/;

describe("a host that lies", () => {
  remoteTest(
    "hosts add ends at its bound when the probe never ends under fleetcom's ControlPersist master, naming the host",
    async () => {
      hostileMode("probe-hang");
      const r = await cli(["hosts", "add", "liar", "--ssh", "hostile"]);
      expect(r.code).toBe(3);
      expect(r.stderr).toBe("fleetcom: cannot reach liar (hostile): no answer within 30 s\n");
      expect(readFileSync(configToml, "utf8")).not.toContain("[hosts.liar]");
    },
    120_000,
  );

  remoteTest(
    "a load whose restore-worktrees there never ends, under the shared master, goes on at its bound, naming the host",
    async () => {
      hostileMode("restore-hang");
      const tree = join(server.home, "tree");
      const recipe = join(fleet.sandbox.home, "hostile-trees.json");
      writeFileSync(
        recipe,
        JSON.stringify({ [`hostile:${tree}`]: [{ cmd: "cat", name: "in-tree", worktree: { repo: join(server.home, "repo"), branch: "feat", path: tree } }] }),
      );
      const r = await cli(["load", recipe]);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain("fleetcom: hostile: worktrees not recreated: hostile is unreachable: no answer within 20 s\n");
    },
    120_000,
  );

  remoteTest("a home of 2 MB, or of 5,000 bytes, is refused in one line naming the host; config.toml and every setting in it stay", async () => {
    const before = readFileSync(configToml, "utf8");
    const refusals = {
      "probe-hugehome": "fleetcom: cannot reach liar (hostile): it printed more than 65536 bytes\n",
      "probe-longhome": `fleetcom: liar: the remote shell did not give its home directory as an absolute path of at most 4096 bytes (got '/${"a".repeat(79)}… (5001 bytes)')\n`,
    };
    for (const [mode, refusal] of Object.entries(refusals)) {
      hostileMode(mode);
      const r = await cli(["hosts", "add", "liar", "--ssh", "hostile"]);
      expect({ mode, code: r.code, stderr: r.stderr }).toEqual({ mode, code: mode === "probe-hugehome" ? 3 : 1, stderr: refusal });
    }
    expect(readFileSync(configToml, "utf8")).toBe(before);
    const hosts = JSON.parse((await cli(["hosts", "ls", "--json"], { FLEETCOM_HOST_TIMEOUT_MS: "1" })).stdout);
    expect(hosts.map((h: { name: string }) => h.name)).toEqual(["hostile"]);
    expect(JSON.parse((await cli(["config", "--json"])).stdout).settings.scrollback).toMatchObject({ value: 1234 });
  });

  remoteTest("a probe that prints gigabytes is cut at its bound: one line naming the host, and little memory", async () => {
    hostileMode("probe-flood");
    const r = await cli(["hosts", "add", "liar", "--ssh", "hostile"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe("fleetcom: cannot reach liar (hostile): it printed more than 65536 bytes\n");
    console.log(`max RSS of hosts add against a flooding probe: ${(r.maxRss / 1024 / 1024).toFixed(0)} MB`);
    expect(r.maxRss).toBeLessThan(SMALL_RSS_BYTES);
  });

  remoteTest("a 200 MiB frame from a host's bridge is refused at its header: one line naming the host, and little memory", async () => {
    hostileMode("bigframe");
    const r = await cli(["--host", "hostile", "ls"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      "fleetcom: hostile's daemon sent what this client cannot read (frame of 209715200 bytes exceeds the 33554432-byte bound); connection closed\n",
    );
    console.log(`max RSS of --host H ls against a 200 MiB frame: ${(r.maxRss / 1024 / 1024).toFixed(0)} MB`);
    expect(r.maxRss).toBeLessThan(SMALL_RSS_BYTES);
  });

  remoteTest("a malformed welcome ends the command with one line naming the host, not a wait for ever", async () => {
    hostileMode("badwelcome");
    const r = await cli(["--host", "hostile", "ls"]);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toStartWith("fleetcom: hostile's daemon sent what this client cannot read (");
    expect(r.stderr).toEndWith("); connection closed\n");
  });

  remoteTest("peek and logs show a host's escape sequences escaped: none reaches the terminal", async () => {
    hostileMode("escapes");
    for (const args of [
      ["peek", "hostile:1"],
      ["logs", "hostile:1"],
      ["peek", "--history", "--ansi", "hostile:1"],
    ]) {
      const r = await cli(args);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: "" });
      expect(r.stdout).toContain("before\\x1b]52;c;SE9TVElMRQ==\\x07\\x1b]0;HOSTILE-TITLE\\x07\\x1b[2J\\x9b31m\\u202e\\x9d0;C1-TITLE\\x07after\n");
      expect(r.stdout).not.toMatch(RAW_CONTROL);
    }
  });
});

describe("a host that does not answer", () => {
  remoteTest("a bridge that never answers costs --host H ls and peek H:1 their bound, with one line naming the host", async () => {
    hostileMode("silent");
    for (const args of [
      ["--host", "hostile", "ls"],
      ["peek", "hostile:1"],
    ]) {
      const r = await cli(args, { FLEETCOM_HOST_TIMEOUT_MS: "3000" });
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({
        args,
        code: 3,
        stderr: "fleetcom: hostile is unreachable: no answer within 3 s (ssh, or its daemon stopped or busy)\n",
      });
    }
  });

  remoteTest(
    "a host's own fleetcom that never answers costs --host H status, sessions and --kill their bound, with one line naming the host",
    async () => {
      hostileMode("silent");
      const before = readFileSync(configToml, "utf8");
      for (const args of [
        ["--host", "hostile", "status"],
        ["--host", "hostile", "sessions"],
        ["--host", "hostile", "--kill", "--yes"],
      ]) {
        const r = await cli(args, { FLEETCOM_HOST_TIMEOUT_MS: "2000" });
        expect({ args, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
          args,
          code: 3,
          stdout: "",
          stderr: `fleetcom: hostile is unreachable: no answer within 2 s (ssh, or fleetcom ${args[2]} there)\n`,
        });
      }
      expect(readFileSync(configToml, "utf8")).toBe(before);
    },
    90_000,
  );

  remoteTest(
    "an sshd that accepts the connection and never answers costs a command run there its connect bound, with one line naming the host",
    async () => {
      server.addMuteAlias("mutetcp");
      const before = readFileSync(configToml, "utf8");
      // As an older `hosts add` saved it: whether the user's ssh config bounds connecting is asked of `ssh -G`.
      writeFileSync(configToml, `${before}\n[hosts.mute]\nssh = "mutetcp"\nhome = "/nowhere"\n`);
      try {
        // load's first word may rightly take minutes (it may start that host's daemon and tasks): ssh's ConnectTimeout ends it.
        const load = await cli(["--host", "mute", "load", "anything"], { FLEETCOM_HOST_TIMEOUT_MS: "3000" });
        expect({ code: load.code, stdout: load.stdout }).toEqual({ code: 3, stdout: "" });
        expect(load.stderr).toMatch(/^fleetcom: mute is unreachable: Connection to 127\.0\.0\.1 port \d+ timed out\n$/);
        // status: whichever bound ends it first, connecting's or the answer's, one line naming the host.
        const status = await cli(["--host", "mute", "status"], { FLEETCOM_HOST_TIMEOUT_MS: "3000" });
        expect({ code: status.code, stdout: status.stdout }).toEqual({ code: 3, stdout: "" });
        expect(status.stderr).toMatch(/^fleetcom: mute is unreachable: [^\n]+\n$/);
      } finally {
        writeFileSync(configToml, before);
      }
    },
    90_000,
  );

  remoteTest(
    "a stopped daemon there costs --host H ls and peek H:1 their bound, with one line naming the host",
    async () => {
      const add = await sharingPack(fleet.sandbox.home, () => cli(["hosts", "add", "remote1"]));
      expect(add.code).toBe(0);
      const id = (await cli(["--host", "remote1", "run", "--", "sleep 600"], { FLEETCOM_HOST_TIMEOUT_MS: "60000" })).stdout.trim();
      expect(id).toMatch(/^\d+$/);
      const pid = Number(readFileSync(`/tmp/fleetcom-${server.uid}/daemon.lock`, "utf8").trim());
      process.kill(pid, "SIGSTOP");
      try {
        for (const args of [
          ["--host", "remote1", "ls"],
          ["peek", `remote1:${id}`],
        ]) {
          const r = await cli(args, { FLEETCOM_HOST_TIMEOUT_MS: "5000" });
          expect({ args, code: r.code, stderr: r.stderr }).toEqual({
            args,
            code: 3,
            stderr: "fleetcom: remote1 is unreachable: no answer within 5 s (ssh, or its daemon stopped or busy)\n",
          });
        }
      } finally {
        process.kill(pid, "SIGCONT");
      }
      await until("the daemon there to answer again", async () => (await cli(["--host", "remote1", "ls"], { FLEETCOM_HOST_TIMEOUT_MS: "60000" })).code === 0);
    },
    300_000,
  );
});
