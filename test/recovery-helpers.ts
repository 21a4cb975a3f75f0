// What the session and recovery tests share: a fleet with short snapshot intervals, a raw socket
// client for bursts the CLI could not issue within a second, the snapshots on disk and the writes the
// daemon logged, and the process sweep for tasks a SIGKILLed daemon may leave behind.
import { connect, type Socket } from "node:net";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FrameDecoder, FrameKind, MAX_DAEMON_FRAME, PROTOCOL_VERSION, decodeJson, encodeControl, encodeData } from "../src/protocol.ts";
import { isSnapshotName } from "../src/recovery.ts";
import { VERSION } from "../src/version.ts";
import { Fleet } from "./fleet.ts";

/** A Fleet whose daemon snapshots quickly; the minute check stays out of the way unless asked for. */
export function snapshotFleet(settings: { debounceMs?: number; checkMs?: number } = {}): Fleet {
  const fleet = new Fleet();
  fleet.env.FLEETCOM_SNAPSHOT_DEBOUNCE_MS = String(settings.debounceMs ?? 100);
  fleet.env.FLEETCOM_SNAPSHOT_CHECK_MS = String(settings.checkMs ?? 3_600_000);
  return fleet;
}

/** What a recipe keeps of a task, in the order a load recreates it (directory, then id). */
export type Launch = { cwd: string; command: string; group: string | null; name: string | null };

export function launches(tasks: Launch[]): Launch[] {
  const rows = tasks.map(({ cwd, command, group, name }) => ({ cwd, command, group, name }));
  return rows.sort((a, b) => (a.cwd < b.cwd ? -1 : a.cwd > b.cwd ? 1 : 0));
}

export function recoveryDirOf(fleet: Fleet): string {
  return join(fleet.sandbox.config, "sessions", "recovery");
}

export function snapshotNames(fleet: Fleet): string[] {
  try {
    return readdirSync(recoveryDirOf(fleet)).filter(isSnapshotName);
  } catch {
    return [];
  }
}

/** `snapshot written` lines in the daemon log: the write counter that does not depend on timing. */
export function snapshotWrites(fleet: Fleet): number {
  try {
    return readFileSync(join(fleet.sandbox.runtime, "daemon.log"), "utf8").split("\n").filter((l) => / snapshot written /.test(l)).length;
  } catch {
    return 0;
  }
}

/**
 * One connection, many requests without waiting: what a burst of commands looks like to the daemon.
 * It keeps every other control message it gets (events, refusals) in order, and can stop reading.
 */
export class RawClient {
  private nextId = 1;
  private readonly waiting = new Map<number, (reply: { ok: boolean; result?: unknown; error?: string }) => void>();
  private readonly decoder = new FrameDecoder(MAX_DAEMON_FRAME);
  closed = false;
  /** Control messages other than replies, in arrival order. */
  readonly messages: { type: string; [key: string]: unknown }[] = [];
  /** Bytes of control frames received so far (replies, events, refusals). */
  controlBytes = 0;
  /** Data frames (screens, task output) received so far, as text. */
  data = "";
  private readonly text = new TextDecoder();

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Uint8Array) => {
      for (const frame of this.decoder.push(chunk)) {
        if (frame.kind !== FrameKind.control) {
          this.data += this.text.decode(frame.payload, { stream: true });
          continue;
        }
        this.controlBytes += frame.payload.length;
        const message = decodeJson(frame.payload) as { type: string; id: number; ok: boolean; result?: unknown; error?: string };
        if (message.type === "reply") this.waiting.get(message.id)?.(message);
        else this.messages.push(message);
      }
    });
    socket.on("close", () => {
      this.closed = true;
      for (const settle of this.waiting.values()) settle({ ok: false, error: "connection closed" });
      this.waiting.clear();
    });
    socket.on("error", () => {});
  }

  static open(fleet: Fleet, cwd = fleet.sandbox.home): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(join(fleet.sandbox.runtime, "default.sock"));
      socket.once("error", reject);
      socket.once("connect", () => {
        const client = new RawClient(socket);
        socket.write(encodeControl({ type: "hello", protocol: PROTOCOL_VERSION, version: VERSION, cwd, env: fleet.env, cols: 80, rows: 24 }));
        resolve(client);
      });
    });
  }

  /** Resolves with the reply; a dropped connection resolves too, as a failure. */
  request(op: string, args: Record<string, unknown> = {}): Promise<{ ok: boolean; result?: unknown; error?: string }> {
    if (this.closed) return Promise.resolve({ ok: false, error: "connection closed" });
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.socket.write(encodeControl({ type: "request", id, op, args }));
    });
  }

  /** Raw input, as an attached client's keystrokes. */
  sendData(bytes: Uint8Array): void {
    this.socket.write(encodeData(bytes));
  }

  /** Stops reading: the daemon's writes to this client pile up in its own queue. */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Processes whose environment holds `marker`: every task a test's daemons started, and nothing else. */
export function processesWithMarker(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").split("\0").includes(marker) && !isZombie(Number(entry))) found.push(Number(entry));
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

function isZombie(pid: number): boolean {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z";
}

/** Cleanup after a crash: each task leads its own process group, so kill the groups. */
export function killProcessGroups(pids: number[]): void {
  for (const pid of pids) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {}
    }
  }
}
