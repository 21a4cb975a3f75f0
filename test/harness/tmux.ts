// A private tmux server for tests that need a real terminal as the oracle: its own socket in the
// sandbox, no config file, the sandbox's environment for every pane. Panes stay after their command
// ends (remain-on-exit), so a client can be started again in the same pane. Ended in kill().
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "./fleet.ts";

export interface PaneSize {
  cols: number;
  rows: number;
}

export class Tmux {
  readonly socket: string;
  private serverPid: number | null = null;

  constructor(
    private readonly env: Record<string, string>,
    dir: string,
  ) {
    this.socket = join(dir, "tmux.sock");
  }

  static available(): boolean {
    return Bun.which("tmux") !== null;
  }

  /** tmux's own version, e.g. "3.3a". */
  static version(): string {
    return new TextDecoder()
      .decode(Bun.spawnSync(["tmux", "-V"]).stdout)
      .trim()
      .replace(/^tmux /, "");
  }

  /** Runs one tmux command against this server; throws when tmux fails. */
  cmd(...args: string[]): string {
    const env = { ...this.env, LANG: "C.UTF-8", TERM: "xterm-256color" };
    const r = Bun.spawnSync(["tmux", "-u", "-f", "/dev/null", "-S", this.socket, ...args], { env });
    if (r.exitCode !== 0) throw new Error(`tmux ${args.join(" ")}: ${new TextDecoder().decode(r.stderr)}`);
    return new TextDecoder().decode(r.stdout);
  }

  /** A new window named `name` running `command` (a shell command line); the first one starts the server. */
  window(name: string, command: string, size: PaneSize = { cols: 80, rows: 30 }): void {
    try {
      this.cmd("has-session", "-t", "test");
      this.cmd("new-window", "-d", "-t", "test", "-n", name, command);
    } catch {
      this.cmd("new-session", "-d", "-s", "test", "-n", name, "-x", String(size.cols), "-y", String(size.rows), command);
      this.cmd("set-option", "-g", "remain-on-exit", "on");
      this.cmd("set-option", "-g", "history-limit", "5000");
      this.serverPid = Number(this.cmd("display-message", "-p", "#{pid}").trim());
    }
  }

  /** Starts `command` again in a window whose command has ended. */
  respawn(name: string, command: string): void {
    this.cmd("respawn-pane", "-k", "-t", `test:${name}`, command);
  }

  /** Types text as it is, without tmux reading key names in it. */
  type(name: string, text: string): void {
    this.cmd("send-keys", "-t", `test:${name}`, "-l", text);
  }

  /** Presses keys by tmux name (`Enter`, `C-\\`). */
  press(name: string, ...keys: string[]): void {
    this.cmd("send-keys", "-t", `test:${name}`, ...keys);
  }

  /**
   * The pane's text, rows right-trimmed and trailing blank rows dropped; `history` adds the
   * scrollback, with wrapped lines joined.
   */
  capture(name: string, history = false): string {
    const text = this.cmd("capture-pane", "-p", "-t", `test:${name}`, ...(history ? ["-J", "-S", "-"] : []));
    return text
      .split("\n")
      .map((row) => row.trimEnd())
      .join("\n")
      .replace(/\n+$/, "");
  }

  async waitFor(name: string, what: string, test: (text: string) => boolean, history = false): Promise<string> {
    let last = "";
    try {
      return await until(`${what} in tmux window ${name}`, () => {
        last = this.capture(name, history);
        return test(last) ? last : undefined;
      });
    } catch (error) {
      // The screen it stopped at says why far more often than the wait's name does.
      throw new Error(`${(error as Error).message}; the pane showed:\n${last}`);
    }
  }

  /** A pane variable, e.g. `pane_dead`, `alternate_on`, `cursor_y`. */
  format(name: string, variable: string): string {
    return this.cmd("display-message", "-p", "-t", `test:${name}`, `#{${variable}}`).trim();
  }

  /** Resolves once the program in the pane has switched its terminal to raw mode (no ICANON). */
  waitForRawMode(name: string): Promise<true> {
    const tty = this.format(name, "pane_tty");
    return until(`raw mode in tmux window ${name}`, () => {
      const flags = new TextDecoder().decode(Bun.spawnSync(["stty", "-a", "-F", tty]).stdout);
      return /(^|\s)-icanon(\s|$)/.test(flags);
    });
  }

  waitForExit(name: string): Promise<true> {
    return until(`the command in tmux window ${name} to end`, () => this.format(name, "pane_dead") === "1");
  }

  /** Ends the server: by its socket, or by its pid when the sandbox (and the socket in it) went first. */
  kill(): void {
    if (Bun.spawnSync(["tmux", "-S", this.socket, "kill-server"]).exitCode === 0 || this.serverPid === null) return;
    try {
      process.kill(this.serverPid, "SIGTERM");
    } catch {}
  }
}

/** `argv` as one command line for sh. */
export function shellWords(argv: string[]): string {
  return argv.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(" ");
}

/** Writes `dir/fc`, a script that runs the fleetcom CLI, so a test types short command lines. */
export function fleetcomScript(dir: string, argv: (args: string[]) => string[]): string {
  const path = join(dir, "fc");
  writeFileSync(path, `#!/bin/sh\nexec ${shellWords(argv([]))} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}
