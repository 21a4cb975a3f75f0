// A real OpenSSH server for the remote-fleet tests and benchmarks (docs/remote.md): sshd on
// 127.0.0.1 on a free port, its host key and a user key made in `root`, and a second local Unix
// user as the "remote" (its own home, runtime directory and daemon), created here and removed by
// stop() whatever happened. The client side's ssh config (Host aliases, the key, known_hosts) is
// written to `clientHome/.ssh/config`; ssh reads the passwd home, not $HOME, so a client reaches it
// with `ssh -F <config>` (FLEETCOM_SSH for fleetcom).
//
// Needs root (useradd) and /usr/sbin/sshd.
import { test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { processesWhere } from "./helpers.ts";
import { createServer } from "node:net";
import { join } from "node:path";

export const SSHD = "/usr/sbin/sshd";

export function sshdAvailable(): boolean {
  return process.getuid?.() === 0 && existsSync(SSHD) && Bun.which("ssh-keygen") !== null && Bun.which("useradd") !== null;
}

/**
 * A test that needs this server and the binary (FLEETCOM_TEST_BIN): skipped without them, except
 * under CI (CI=true), where it fails: .ci/run installs openssh-server, so a skip there would hide a
 * broken transport.
 */
export function remoteTest(name: string, body: () => Promise<void>, timeout = 120_000): void {
  if (sshdAvailable() && process.env.FLEETCOM_TEST_BIN !== undefined) test(name, body, timeout);
  else if (process.env.CI === "true")
    test(name, () => {
      throw new Error("remote tests need root, /usr/sbin/sshd, ssh-keygen and FLEETCOM_TEST_BIN; .ci/run installs openssh-server so that CI never skips them");
    });
  else test.skip(name, body);
}

export interface SshServer {
  user: string;
  uid: number;
  /** The remote user's home. */
  home: string;
  /** The client's ssh config, with the Host aliases: `remote1` (this sshd), `refused` (a closed port), `silent` (never answers). */
  config: string;
  /** The remote user's processes now, from /proc: every one of them was started through this server. */
  userPids(): number[];
  /**
   * Adds the Host alias `alias` to the client's config: the same user on this server through a key of
   * its own whose authorized_keys line forces `command` (a lying host: it runs whatever it likes, the
   * command asked for in SSH_ORIGINAL_COMMAND). Reached as `localhost`, so fleetcom's ControlPath
   * (%C) gives it a master of its own, apart from remote1's.
   */
  addForcedCommandAlias(alias: string, command: string): void;
  /**
   * Adds the Host alias `alias` to the client's config: a TCP port on 127.0.0.1 that accepts every
   * connection and never says a word (an sshd that hangs before its banner). Closed by stop().
   */
  addMuteAlias(alias: string): void;
  /** Ends the server, every process of the remote user (by pid), and removes the user and its files. */
  stop(): Promise<void>;
}

function must(argv: string[]): string {
  const r = Bun.spawnSync(argv, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${r.exitCode}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

async function listens(port: number): Promise<boolean> {
  try {
    const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}

function pidsOfUid(uid: number): number[] {
  const owner = new RegExp(`^Uid:\\s+${uid}\\s`, "m");
  return processesWhere((read) => owner.test(read("status")));
}

async function boundedWait(what: string, probe: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

export async function startSshServer(root: string, clientHome: string): Promise<SshServer> {
  const user = `fcr${process.pid}${Math.floor(Math.random() * 1000)}`;
  mkdirSync(root, { recursive: true });
  must(["useradd", "-m", "-s", "/bin/sh", user]);
  let uid = -1;
  let sshd: ReturnType<typeof Bun.spawn> | null = null;
  const mutes: { stop(closeActive?: boolean): void }[] = [];
  const stop = async () => {
    for (const mute of mutes) mute.stop(true);
    sshd?.kill("SIGTERM");
    await sshd?.exited;
    if (uid >= 0) {
      for (const pid of pidsOfUid(uid)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
      }
      await boundedWait("the remote user's processes to end", () => pidsOfUid(uid).length === 0, 10_000).catch(() => {});
    }
    Bun.spawnSync(["userdel", "-r", "-f", user], { stdout: "ignore", stderr: "ignore" });
    if (uid >= 0) rmSync(`/tmp/fleetcom-${uid}`, { recursive: true, force: true });
  };
  try {
    // sshd without PAM refuses a locked account ('!' in shadow); '*' is no password, and not locked.
    must(["usermod", "-p", "*", user]);
    uid = Number(must(["id", "-u", user]).trim());
    const home = must(["sh", "-c", `getent passwd ${user} | cut -d: -f6`]).trim();
    must(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", join(root, "host_key")]);
    must(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", join(root, "user_key")]);
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".ssh", "authorized_keys"), readFileSync(join(root, "user_key.pub")));
    must(["chown", "-R", `${user}:`, join(home, ".ssh")]);
    const port = await freePort();
    writeFileSync(
      join(root, "sshd_config"),
      [
        `Port ${port}`,
        "ListenAddress 127.0.0.1",
        `HostKey ${join(root, "host_key")}`,
        `PidFile ${join(root, "sshd.pid")}`,
        "UsePAM no",
        "StrictModes no",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "PubkeyAuthentication yes",
        "AuthorizedKeysFile .ssh/authorized_keys",
        `AllowUsers ${user}`,
        "PermitRootLogin no",
        "",
      ].join("\n"),
    );
    // sshd's privilege separation wants its empty directory at every connection. It stays: the slow
    // lane's files run in parallel, each with its sshd, and one file removing it at its end made every
    // other file's sshd reset each new connection ("Connection reset by 127.0.0.1").
    if (!existsSync("/run/sshd")) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
    sshd = Bun.spawn([SSHD, "-D", "-e", "-f", join(root, "sshd_config")], { stdout: "ignore", stderr: "ignore" });
    await boundedWait("sshd to listen", () => listens(port), 20_000);
    const alias = (name: string, extra: string[]) =>
      [
        `Host ${name}`,
        "  HostName 127.0.0.1",
        `  User ${user}`,
        `  IdentityFile ${join(root, "user_key")}`,
        "  IdentitiesOnly yes",
        `  UserKnownHostsFile ${join(root, "known_hosts")}`,
        "  StrictHostKeyChecking accept-new",
        ...extra.map((e) => `  ${e}`),
      ].join("\n");
    const sshDir = join(clientHome, ".ssh");
    mkdirSync(sshDir, { recursive: true, mode: 0o700 });
    const config = join(sshDir, "config");
    writeFileSync(
      config,
      [
        alias("remote1", [`Port ${port}`]),
        alias("refused", [`Port ${await freePort()}`]),
        // Never answers: its "connection" reads what ssh sends and says nothing (the shell holds the
        // pipe ssh reads open), and ends with ssh, as a real proxy (nc, ssh -W) does: `sleep 600`
        // outlived every ssh ended before it connected. Its own port, as the ControlPath hash (%C)
        // of remote1's host, port and user would share remote1's master.
        alias("silent", [`Port ${await freePort()}`, "ProxyCommand sh -c 'cat > /dev/null'"]),
        "",
      ].join("\n"),
    );
    chmodSync(config, 0o600);
    const addForcedCommandAlias = (name: string, command: string) => {
      const key = join(root, `${name}_key`);
      must(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key]);
      const keys = join(home, ".ssh", "authorized_keys");
      writeFileSync(keys, `${readFileSync(keys, "utf8")}command=${JSON.stringify(command)} ${readFileSync(`${key}.pub`, "utf8")}`);
      const entry = alias(name, [`Port ${port}`])
        .replace("HostName 127.0.0.1", "HostName localhost")
        .replace(join(root, "user_key"), key);
      writeFileSync(config, `${readFileSync(config, "utf8")}${entry}\n`);
    };
    const addMuteAlias = (name: string) => {
      const mute = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
      mutes.push(mute);
      writeFileSync(config, `${readFileSync(config, "utf8")}${alias(name, [`Port ${mute.port}`])}\n`);
    };
    return { user, uid, home, config, userPids: () => pidsOfUid(uid), stop, addForcedCommandAlias, addMuteAlias };
  } catch (error) {
    await stop();
    throw error;
  }
}
