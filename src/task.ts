// One task: a shell command in its own PTY and session, the headless screen it draws on, and its
// life (running, idle, exited; rerun in place). The daemon owns tasks; a task never talks to clients.
import type { TaskInfo } from "./messages.ts";
import { spawnPty, type Pty } from "./pty.ts";
import { groupAlive, signalGroup } from "./process-group.ts";
import { Screen } from "./screen.ts";

export const IDLE_AFTER_MS = 10_000;
const KILL_GRACE_MS = 2_000;

export interface TaskSpec {
  id: number;
  command: string;
  cwd: string;
  env: Record<string, string>;
  name: string | null;
  group: string | null;
  cols: number;
  rows: number;
  scrollback: number;
}

export interface TaskListener {
  output(task: Task, chunk: Uint8Array): void;
  reply(task: Task, data: string): void;
  exited(task: Task): void;
}

export class Task {
  readonly id: number;
  readonly cwd: string;
  command: string;
  name: string | null;
  group: string | null;
  tagged = false;
  run = 0;
  screen!: Screen;
  pid: number | null = null;
  exitCode: number | null = null;
  signal: string | null = null;
  startedAt = new Date();
  endedAt: Date | null = null;
  lastOutputAt: number | null = null;
  cols: number;
  rows: number;
  private pty: Pty | null = null;

  constructor(
    spec: TaskSpec,
    private readonly listener: TaskListener,
  ) {
    this.id = spec.id;
    this.cwd = spec.cwd;
    this.command = spec.command;
    this.name = spec.name;
    this.group = spec.group;
    this.cols = spec.cols;
    this.rows = spec.rows;
    this.start(spec.env, spec.scrollback);
  }

  get running(): boolean {
    return this.endedAt === null;
  }

  /** Spawns the command; `env` is the asking client's environment and is never stored. */
  start(clientEnv: Record<string, string>, scrollback: number, executed: string = this.command): void {
    this.screen?.dispose();
    this.screen = new Screen({ cols: this.cols, rows: this.rows, scrollback });
    this.screen.onReply((data) => this.listener.reply(this, data));
    this.run += 1;
    this.startedAt = new Date();
    this.endedAt = null;
    this.exitCode = null;
    this.signal = null;
    this.lastOutputAt = null;
    const env = { ...clientEnv, TERM: "xterm-256color", FLEETCOM_TASK_ID: String(this.id) };
    const shell = clientEnv.SHELL || "/bin/sh";
    const run = this.run;
    try {
      this.pty = spawnPty({
        argv: [shell, "-c", executed],
        cwd: this.cwd,
        env,
        cols: this.cols,
        rows: this.rows,
        onData: (chunk) => this.onOutput(chunk),
      });
    } catch (error) {
      this.failToStart(error);
      return;
    }
    this.pid = this.pty.pid;
    this.pty.exited.then((exit) => {
      if (this.run !== run) return;
      this.exitCode = exit.exitCode;
      this.signal = exit.signal;
      this.endedAt = new Date();
      this.pty = null;
      this.listener.exited(this);
    });
  }

  private failToStart(error: unknown): void {
    const message = `fleetcom: could not start: ${error instanceof Error ? error.message : String(error)}\r\n`;
    this.screen.write(message);
    this.exitCode = 127;
    this.endedAt = new Date();
    queueMicrotask(() => this.listener.exited(this));
  }

  private onOutput(chunk: Uint8Array): void {
    this.lastOutputAt = Date.now();
    this.screen.write(chunk);
    this.listener.output(this, chunk);
  }

  write(data: Uint8Array | string): void {
    this.pty?.write(data);
  }

  resize(cols: number, rows: number): void {
    if (cols === this.cols && rows === this.rows) return;
    this.cols = cols;
    this.rows = rows;
    this.screen.resize(cols, rows);
    this.pty?.resize(cols, rows);
  }

  idle(now = Date.now()): boolean {
    return this.running && now - (this.lastOutputAt ?? this.startedAt.getTime()) >= IDLE_AFTER_MS;
  }

  /** TERM to the whole process group, KILL after the grace period to whatever is still there. */
  async terminate(): Promise<void> {
    const pgid = this.pid;
    if (pgid === null) return;
    if (!signalGroup(pgid, "SIGTERM")) return;
    const deadline = Date.now() + KILL_GRACE_MS;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
      if (!groupAlive(pgid)) return;
    }
    signalGroup(pgid, "SIGKILL");
  }

  info(now = Date.now()): TaskInfo {
    return {
      id: this.id,
      run: this.run,
      command: this.command,
      name: this.name,
      group: this.group,
      cwd: this.cwd,
      tagged: this.tagged,
      state: this.running ? "running" : "exited",
      idle: this.idle(now),
      exitCode: this.exitCode,
      signal: this.signal,
      pid: this.pid,
      startedAt: this.startedAt.toISOString(),
      endedAt: this.endedAt?.toISOString() ?? null,
      lastOutputAt: this.lastOutputAt === null ? null : new Date(this.lastOutputAt).toISOString(),
      preview: this.screen.previewLine(),
    };
  }

  dispose(): void {
    this.screen.dispose();
  }
}
