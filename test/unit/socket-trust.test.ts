// The pure parts of issue 11's socket trust: what makes a runtime directory acceptable, the one-line
// errors for each way opening it fails (L8), who may be at the other end of the socket, and the
// client's wording when it cannot connect (L3). No daemon here.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { closeSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { busyDaemon, connectFailure } from "../../src/client.ts";
import { flockHolder, flockHolderIn } from "../../src/proc.ts";
import { UserError } from "../../src/errors.ts";
import { clientRefusal, daemonRefusal, listenerGone } from "../../src/wire-peer.ts";
import { openFailure, openRuntimeDir, runtimeDirProblem } from "../../src/runtime-dir.ts";
import { peerUidReader, socketFd, tryLockExclusive } from "../../src/platform.ts";
import { connectClientSocket } from "../../src/client-socket.ts";
import { thrown } from "../harness/helpers.ts";

const dirStat = (mode: number, uid = 1000) => ({ uid, mode: 0o40000 | mode, isDirectory: () => true });

describe("which runtime directory is acceptable", () => {
  test("only a directory of ours with mode exactly 0700 (setgid and sticky bits aside)", () => {
    expect(runtimeDirProblem("/r", dirStat(0o700), 1000)).toBeNull();
    expect(runtimeDirProblem("/r", dirStat(0o2700), 1000)).toBeNull();
    for (const mode of [0o755, 0o750, 0o705, 0o701, 0o710, 0o770, 0o707, 0o777]) {
      expect(runtimeDirProblem("/r", dirStat(mode), 1000)).toBe(
        `runtime directory /r has mode ${mode.toString(8).padStart(4, "0")}, not 0700 (private to you); refusing to use it`,
      );
    }
    expect(runtimeDirProblem("/r", dirStat(0o700, 1001), 1000)).toBe("runtime directory /r is owned by uid 1001, not you (uid 1000); refusing to use it");
    expect(runtimeDirProblem("/r", { uid: 1000, mode: 0o100600, isDirectory: () => false }, 1000)).toBe("runtime directory /r is not a directory");
  });

  test("each way opening it fails is one line naming the directory, never an internal error (L8)", () => {
    const err = (code: string) => Object.assign(new Error(`${code}: boom, lstat '/r'`), { code });
    const cases: [UserError, string][] = [
      [openFailure("/r", err("ENOENT")), "runtime directory /r was removed while fleetcom was opening it (is something cleaning it up?); try again"],
      [openFailure("/r", err("ENOTDIR"), "symlink"), "runtime directory /r is a symlink; refusing to use it"],
      [openFailure("/r", err("ELOOP"), "symlink"), "runtime directory /r is a symlink; refusing to use it"],
      [openFailure("/r", err("ENOTDIR")), "runtime directory /r is not a directory"],
      [openFailure("/r", err("EACCES")), "cannot use runtime directory /r: permission denied (EACCES)"],
      [openFailure("/r", err("EROFS")), "cannot use runtime directory /r: read-only file system (EROFS)"],
      [openFailure("/r", err("EWHATEVER")), "cannot use runtime directory /r: cannot open it (EWHATEVER)"],
    ];
    for (const [error, message] of cases) {
      expect(error).toBeInstanceOf(UserError);
      expect(error.message).toBe(message);
    }
  });
});

describe("opening the runtime directory", () => {
  let root: string;
  let umask: number;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), "fleetcom-rtdir-")));
    umask = process.umask();
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(root, { recursive: true, force: true });
  });

  test("a missing one is made 0700 whatever the umask", () => {
    for (const mask of [0o000, 0o277]) {
      process.umask(mask);
      const path = join(root, `made-${mask}`);
      const dir = openRuntimeDir(path);
      dir.close();
      expect(statSync(path).mode & 0o777).toBe(0o700);
    }
  });

  test("a symlink, a file or an existing 0755 one is refused and left as it was", () => {
    const real = join(root, "real");
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, join(root, "link"));
    writeFileSync(join(root, "file"), "");
    mkdirSync(join(root, "open"), { mode: 0o755 });
    expect(thrown(() => openRuntimeDir(join(root, "link"))).message).toBe(`runtime directory ${root}/link is a symlink; refusing to use it`);
    expect(thrown(() => openRuntimeDir(join(root, "file"))).message).toBe(`runtime directory ${root}/file is not a directory`);
    expect(thrown(() => openRuntimeDir(join(root, "open"))).message).toContain("has mode 0755, not 0700");
    expect(statSync(join(root, "open")).mode & 0o777).toBe(0o755);
  });

  test("entries are reached through the directory's fd on Linux", () => {
    const dir = openRuntimeDir(join(root, "rt"));
    expect(dir.entry("default.sock")).toBe(process.platform === "linux" ? `/proc/self/fd/${dir.fd}/default.sock` : join(root, "rt", "default.sock"));
    expect(dir.stillAtPath()).toBe(true);
    rmSync(join(root, "rt"), { recursive: true });
    expect(dir.stillAtPath()).toBe(false);
    dir.close();
  });
});

describe("who is at the other end", () => {
  test("the kernel reports our own uid at both ends of a Unix socket", async () => {
    const read = await peerUidReader();
    const path = join(realpathSync(tmpdir()), `fleetcom-peer-${process.pid}.sock`);
    let accepted: Socket | undefined;
    const server = createServer((s) => (accepted = s));
    await new Promise<void>((r) => server.listen(path, () => r()));
    const client = connect(path);
    await new Promise<void>((r) => client.once("connect", () => r()));
    await new Promise<void>((r) => (accepted ? r() : server.once("connection", () => r())));
    // On Linux, also the PID that made each end (both are this process): the client's check that the
    // daemon behind a socket still lives (client.ts connectVerified) reads it.
    const us = process.platform === "linux" ? { uid: process.getuid!(), pid: process.pid } : { uid: process.getuid!() };
    try {
      expect(read(socketFd(client))).toEqual(us);
      expect(read(socketFd(accepted!))).toEqual(us);
      // The client's own socket (Bun's under Bun) gives its fd too.
      const attempt = await connectClientSocket(path);
      if (!("socket" in attempt)) throw new Error(`no socket: ${attempt.code}`);
      expect(read(attempt.socket.fd)).toEqual(us);
      attempt.socket.destroy();
    } finally {
      client.destroy();
      accepted?.destroy();
      server.close();
    }
  });

  test("a socket whose fd cannot be found is unknown, and unknown is a refusal on both sides", async () => {
    const read = await peerUidReader();
    const peer = read(socketFd({} as Socket));
    expect(peer).toEqual({ unknown: "this runtime does not expose the socket's fd" });
    expect(daemonRefusal("/r/default.sock", peer, 1000)).toBe(
      "cannot tell who is listening on /r/default.sock (this runtime does not expose the socket's fd); refusing to talk to it",
    );
    expect(clientRefusal(peer, 1000)).toBe("cannot tell who connected (this runtime does not expose the socket's fd)");
  });

  test("only the same uid passes", () => {
    expect(daemonRefusal("/r/default.sock", { uid: 1000 }, 1000)).toBeNull();
    expect(clientRefusal({ uid: 1000 }, 1000)).toBeNull();
    expect(daemonRefusal("/r/default.sock", { uid: 1001 }, 1000)).toBe("/r/default.sock is served by uid 1001, not you (uid 1000); refusing to talk to it");
    expect(clientRefusal({ uid: 0 }, 1000)).toBe("this daemon serves uid 1000 only, not uid 0");
  });

  test("a socket whose maker is gone is no daemon's; a maker we cannot see or name is not taken for gone", () => {
    const alive = (pid: number) => pid === 42;
    expect(listenerGone({ uid: 1000, pid: 43 }, alive)).toBe(true);
    expect(listenerGone({ uid: 1000, pid: 42 }, alive)).toBe(false);
    // Another PID namespace's maker reads as PID 0; getpeereid (macOS) gives no PID at all.
    expect(listenerGone({ uid: 1000, pid: 0 }, alive)).toBe(false);
    expect(listenerGone({ uid: 1000 }, alive)).toBe(false);
    expect(listenerGone({ unknown: "no fd" }, alive)).toBe(false);
  });
});

describe("what the client says when it cannot connect (L3)", () => {
  test("running out of file descriptors is named as such; other failures lead to autostart", () => {
    expect(connectFailure("EMFILE")?.message).toBe("fleetcom is out of file descriptors (EMFILE) and cannot connect to the daemon");
    expect(connectFailure("ENFILE")?.message).toBe("the system is out of file descriptors (ENFILE); cannot connect to the daemon");
    expect(connectFailure("EMFILE")?.exitCode).toBe(3);
    for (const code of ["ENOENT", "ECONNREFUSED", "EAGAIN"]) expect(connectFailure(code)).toBeNull();
    expect(busyDaemon(42, "/r/daemon.log").message).toBe(
      "daemon 42 is running but not accepting connections (busy, stopped or out of file descriptors); see /r/daemon.log",
    );
  });

  test("the lock's holder is read from /proc/locks by inode, waiters and other locks ignored", () => {
    const locks = [
      "1: POSIX  ADVISORY  WRITE 900 00:1f:777 0 EOF",
      "2: FLOCK  ADVISORY  WRITE 1234 00:2a:4242 0 EOF",
      "2: -> FLOCK  ADVISORY  WRITE 5678 00:2a:4242 0 EOF",
      "3: FLOCK  ADVISORY  READ 99 fd:01:5151 0 EOF",
    ].join("\n");
    expect(flockHolderIn(4242, locks)).toBe(1234);
    expect(flockHolderIn(777, locks)).toBeNull();
    expect(flockHolderIn(5151, locks)).toBeNull();
    expect(flockHolderIn(1, "")).toBeNull();
  });

  test.skipIf(process.platform !== "linux")("the PID the lock file names is believed only while that process holds the flock (its own fdinfo)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fleetcom-flock-"));
    try {
      const lock = join(dir, "daemon.lock");
      writeFileSync(lock, `${process.pid}\n`);
      expect(flockHolder(lock)).toBeNull();
      const fd = openSync(lock, "a+");
      try {
        expect(await tryLockExclusive(fd)).toBe(true);
        expect(flockHolder(lock)).toBe(process.pid);
      } finally {
        closeSync(fd);
      }
      expect(flockHolder(lock)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
