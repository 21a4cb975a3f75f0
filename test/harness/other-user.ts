// A second, real Unix user on this machine for the tests where another local user is the attacker:
// created with useradd (no home), every process started as it through setpriv, killed and the user
// removed by remove(), whatever happened. Needs root.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface OtherUser {
  name: string;
  uid: number;
  gid: number;
  /** World-traversable scratch for what the user runs and writes (it owns nothing else). */
  shared: string;
  /** Starts argv as this user, with a bare environment; killed by remove(). */
  spawn(argv: string[]): ReturnType<typeof Bun.spawn>;
  /** Kills every process started as it, removes the user and its scratch. */
  remove(): Promise<void>;
}

export function canCreateUsers(): boolean {
  return process.getuid?.() === 0 && Bun.which("useradd") !== null && Bun.which("setpriv") !== null;
}

export function createOtherUser(prefix: string): OtherUser {
  const name = `${prefix}${process.pid}${Math.floor(Math.random() * 1000)}`;
  const made = Bun.spawnSync(["useradd", "--no-create-home", "--user-group", "--shell", "/usr/sbin/nologin", name]);
  if (made.exitCode !== 0) throw new Error(`useradd ${name}: ${made.stderr}`);
  const id = (flag: string) => Number(Bun.spawnSync(["id", flag, name]).stdout.toString().trim());
  const shared = mkdtempSync(join(tmpdir(), "fleetcom-other-"));
  chmodSync(shared, 0o755);
  const started: ReturnType<typeof Bun.spawn>[] = [];
  const uid = id("-u");
  const gid = id("-g");
  return {
    name,
    uid,
    gid,
    shared,
    spawn(argv) {
      const proc = Bun.spawn(["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", ...argv], {
        env: { PATH: "/usr/bin:/bin", HOME: shared },
        stdout: "pipe",
        stderr: "pipe",
      });
      started.push(proc);
      return proc;
    },
    async remove() {
      for (const proc of started) proc.kill("SIGKILL");
      await Promise.all(started.map((p) => p.exited));
      Bun.spawnSync(["userdel", name]);
      rmSync(shared, { recursive: true, force: true });
    },
  };
}
