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

/** How a detached child ended: with a status, by a signal, or it never ran (the errno, or why). */
export type ChildEnd = { status: number } | { signal: string } | { notRun: string };

/** In words, as a client says it: `exited with status 1`, `was killed by SIGTERM`, `could not be run (ENOENT)`. */
export function endInWords(end: ChildEnd): string {
  if ("status" in end) return `exited with status ${end.status}`;
  if ("signal" in end) return `was killed by ${end.signal}`;
  return `could not be run (${end.notRun})`;
}

export interface DetachedChild {
  pid: number | undefined;
  /** How it ended; pending while it runs. */
  ended: Promise<ChildEnd>;
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
      ended: Promise.resolve({ notRun: errnoCode(error) ?? errorMessage(error) }),
      spoke: Promise.resolve(),
      letGo: () => {},
    };
  }
  const ended = child.exited.then((status): ChildEnd => (child.signalCode ? { signal: String(child.signalCode) } : { status }));
  const pipe = Bun.file(child.stdio[3] as number)
    .stream()
    .getReader();
  const letGo = () => void pipe.cancel().catch(() => {});
  const spoke = pipe.read().then(letGo, () => {});
  child.unref();
  return { pid: child.pid, ended, spoke, letGo };
}
