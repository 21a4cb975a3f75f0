// A detached child started with Bun's own spawn, and its word that it is ready. Apart from
// platform.ts, which loads node:fs and libc's binding, so that the early autostart
// (client-early-start.ts) can start the daemon before this process has loaded either.
import { errnoCode, errorMessage } from "./errors.ts";

declare const Deno: unknown;

/** Bun's own APIs are there (Bun.spawn, Bun.connect, Bun.stdin) and this is not Deno from source: the one test, for every such choice. */
export function runsOnBun(): boolean {
  return typeof Bun !== "undefined" && typeof Deno === "undefined";
}

/** The executable, when this is the compiled fleetcom (its entry is embedded under /$bunfs); else null. */
export function compiledBinary(): string | null {
  const script = process.argv[1] ?? "";
  return script.startsWith("/$bunfs") || script.startsWith("B:/~BUN") ? process.execPath : null;
}

export interface DetachedChild {
  pid: number | undefined;
  /** How it ended (`exited with status 1`, `was killed by SIGTERM`, `could not be run (ENOENT)`); pending while it runs. */
  ended: Promise<string>;
  /** Settles once the child writes to its fd 3, or that pipe closes (the child ended, or closed it). */
  spoke: Promise<void>;
  /** Stops listening on the pipe, which would otherwise keep this process alive until the child speaks. */
  letGo(): void;
}

/**
 * platform.ts spawnDetached under Bun: `argv` in a session of its own (setsid), stdin closed,
 * stdout and stderr to `output` ("ignore": /dev/null), and a socket pair as its fd 3.
 */
export function spawnDetachedOnBun(argv: string[], output: number | "ignore", env: Record<string, string | undefined>): DetachedChild {
  let child: Bun.Subprocess<"ignore", number | "ignore", number | "ignore">;
  try {
    child = Bun.spawn(argv, { detached: true, stdio: ["ignore", output, output, "pipe"], env });
  } catch (error) {
    return {
      pid: undefined,
      ended: Promise.resolve(`could not be run (${errnoCode(error) ?? errorMessage(error)})`),
      spoke: Promise.resolve(),
      letGo: () => {},
    };
  }
  const ended = child.exited.then((code) => (child.signalCode ? `was killed by ${child.signalCode}` : `exited with status ${code}`));
  const pipe = Bun.file(child.stdio[3] as number)
    .stream()
    .getReader();
  const letGo = () => void pipe.cancel().catch(() => {});
  const spoke = pipe.read().then(letGo, () => {});
  child.unref();
  return { pid: child.pid, ended, spoke, letGo };
}
