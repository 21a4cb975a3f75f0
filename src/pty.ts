// The PTY seam: the only place that knows how a runtime gives us a pseudo-terminal. Under Bun it is
// Bun's built-in terminal (event-driven, real signals, no native library; see
// shared/research). The Deno port plugs in here.

export interface PtyExit {
  exitCode: number | null;
  signal: string | null;
}

export interface PtySpawnOptions {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  onData(chunk: Uint8Array): void;
}

export interface Pty {
  readonly pid: number;
  readonly exited: Promise<PtyExit>;
  write(data: Uint8Array | string): void;
  resize(cols: number, rows: number): void;
}

export function spawnPty(options: PtySpawnOptions): Pty {
  if (typeof Bun === "undefined") throw new Error("PTYs need Bun in this build");
  return spawnBunPty(options);
}

function spawnBunPty({ argv, cwd, env, cols, rows, onData }: PtySpawnOptions): Pty {
  // An inline terminal per spawn: a shared Bun.Terminal never reports the child's exit (bun#40289).
  const proc = Bun.spawn(argv, {
    cwd,
    env,
    terminal: { cols, rows, data: (_terminal, chunk) => onData(chunk) },
  });
  const terminal = proc.terminal!;
  const exited = proc.exited.then((code) => {
    const signal = proc.signalCode ?? null;
    terminal.close();
    return { exitCode: signal ? null : code, signal };
  });
  return {
    pid: proc.pid,
    exited,
    write: (data) => {
      if (!terminal.closed) terminal.write(data);
    },
    resize: (c, r) => {
      if (!terminal.closed) terminal.resize(c, r);
    },
  };
}
