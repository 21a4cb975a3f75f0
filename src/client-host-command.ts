// A host's own fleetcom run as a command of its own there (`--host H status`, save, load, recover,
// sessions, `--kill`, diff, merge, review, rewind, run/rm --worktree: cli.ts onHost), its stdin this
// terminal's (`ssh -t` from a terminal, so a question or a picker there works). Until that fleetcom
// says its first word the command is bounded, as a transport's connection is until its daemon's
// welcome (client-failures.ts): ssh's ConnectTimeout bounds connecting (client-ssh.ts), and this
// bounds the rest, a login or a fleetcom there that never answers. Once it has answered it takes as
// long as it takes: a question waits for its person, a picker for its choice.
//
// Its first word is its first byte on stdout (from a terminal, a question and a picker print there
// too): stdout is passed through this process to see it. stderr is held until then, since ssh's own
// words (a known_hosts warning, a server's banner) come before any answer: when ssh fails, its
// reason is one line naming the host, as over the transport.
import { childProcess } from "./platform.ts";
import type { ChildProcess } from "node:child_process";
import { writeSync } from "node:fs";
import { oneHostBoundMs } from "./client-host-bounds.ts";
import { hostOptions, NOT_FOUND, type RemoteHost, remoteBinary, SSH_FAILED, sshCommandLine, transportFailure } from "./client-ssh.ts";
import { EXIT, UserError } from "./errors.ts";
import { shellQuote } from "./text-shell.ts";

/**
 * The first word's bound for a command that may rightly be silent for minutes there: load and
 * recover may start that host's daemon (its own bound there is a minute), its tasks and their
 * worktrees (git checkouts of any size); diff, merge, review and rewind run git in a repository.
 * As long as `hosts add` gives an upload.
 */
export const LONG_ANSWER_MS = 10 * 60_000;

/**
 * How long a command run on `host` is given to say its first word: `quick` (status, sessions, save,
 * `--kill`, which read that host's files and ask its daemon) the one-host bound, 30 s or
 * FLEETCOM_HOST_TIMEOUT_MS; any other LONG_ANSWER_MS, or that setting when it is longer.
 */
export function answerBoundMs(quick: boolean, env: NodeJS.ProcessEnv = process.env): number {
  const oneHost = oneHostBoundMs(env);
  return quick ? oneHost : Math.max(oneHost, LONG_ANSWER_MS);
}

/** How long ssh is given to end after SIGTERM, so that it puts this terminal back (raw mode) before the line is printed. */
const ENDING_MS = 2_000;
/** stderr held before the first word: past this the command is talking, and it is passed on as it comes. */
const HELD_STDERR_BYTES = 64 * 1024;

/**
 * `args` run by the host's fleetcom there; its exit status, or a one-line UserError (exit 3) when
 * ssh fails or nothing is said within `boundMs`.
 */
export async function runOnHost(host: RemoteHost, args: string[], boundMs: number): Promise<number> {
  const command = [remoteBinary(host.home), ...args].map(shellQuote).join(" ");
  const argv = await sshCommandLine(host.ssh, command, { ...hostOptions(host), tty: Boolean(process.stdin.isTTY && process.stdout.isTTY) });
  const { spawn } = childProcess();
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ["inherit", "pipe", "pipe"] });
  return await new Promise<number>((resolve, reject) => {
    const held = new HeldStderr();
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const fail = (message: string) => settle(() => reject(new UserError(message, EXIT.unreachable)));
    // Once ended here, how ssh ends (killed, 255) is this side's doing, not the host's answer.
    let ending = false;
    const end = (outcome: () => void) => {
      ending = true;
      void endUnanswered(child).then(outcome);
    };
    const timer = setTimeout(
      () => end(() => fail(`${host.name} is unreachable: no answer within ${boundMs / 1000} s (ssh, or fleetcom ${args[0]} there)`)),
      boundMs,
    );
    const answered = () => {
      clearTimeout(timer);
      held.release();
    };
    child.stdout!.on("data", (chunk: Buffer) => {
      if (ending) return;
      answered();
      // The reader of this output has gone (`| head -1`): the command has said what was wanted.
      if (!passOn(1, chunk)) end(() => settle(() => resolve(0)));
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      if (!ending && !held.take(chunk)) answered();
    });
    child.once("error", (error) => fail(`${host.name}: cannot run ssh (${error.message})`));
    child.once("close", (code, signal) => {
      if (ending) return;
      if (code === NOT_FOUND || (code === SSH_FAILED && held.holding())) return fail(transportFailure(host, held.text(), code, signal));
      if (code === SSH_FAILED) return fail(`${host.name} is unreachable (ssh exited 255; its reason is above)`);
      settle(() => {
        held.release();
        resolve(code ?? 1);
      });
    });
  });
}

/** ssh ended, not read any more, and not waited for past ENDING_MS: under ControlPersist the master holds the pipes while the command there runs. */
function endUnanswered(child: ChildProcess): Promise<void> {
  for (const stream of [child.stdout, child.stderr]) stream?.destroy();
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve();
    }, ENDING_MS);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** stderr kept back until the first word, then given to this process's stderr as it comes. */
class HeldStderr {
  private chunks: Buffer[] | null = [];
  private bytes = 0;

  /** Keeps `chunk` back while holding; false once it no longer holds (the chunk passed on). */
  take(chunk: Buffer): boolean {
    if (this.chunks === null) {
      passOn(2, chunk);
      return false;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    return this.bytes <= HELD_STDERR_BYTES;
  }

  holding(): boolean {
    return this.chunks !== null;
  }

  text(): string {
    return Buffer.concat(this.chunks ?? []).toString("utf8");
  }

  /** What was held, passed on; from now on every chunk is. */
  release(): void {
    if (this.chunks === null) return;
    const chunks = this.chunks;
    this.chunks = null;
    for (const chunk of chunks) passOn(2, chunk);
  }
}

/**
 * `bytes` written whole to `fd`, blocking: a slow reader slows ssh down through its pipe, as when
 * ssh wrote there itself. False when it cannot be written: its reader has gone (EPIPE).
 */
function passOn(fd: 1 | 2, bytes: Uint8Array): boolean {
  let at = 0;
  while (at < bytes.length) {
    try {
      at += writeSync(fd, bytes, at);
    } catch (error) {
      // A descriptor another process left non-blocking: its reader is slow, so wait a moment.
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return false;
      Atomics.wait(PAUSE, 0, 0, 1);
    }
  }
  return true;
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));
