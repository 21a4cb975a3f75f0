import { compareLine, makeSandbox, onCleanup, openDaemonClient, runCommand, sleep, writeSameFleet } from "./common.ts";

const TASKS = 320;
const COMMAND = "sleep 3600";
/** Asked this often; a sample's time is from asking to the answer. */
const PACE_MS = 2;
/** How long the idle control asks for. */
const IDLE_MS = 1_000;

export async function run(): Promise<string[]> {
  const sandbox = makeSandbox("load");
  const { root, env, fleetcom, tmux } = sandbox;
  const { recipe, script } = writeSameFleet(root, "load", TASKS, COMMAND);

  await fleetcom.run("ls");
  const daemon = await openDaemonClient(sandbox);
  const fleetIdle = await whileAsking(
    () => daemon.request("status"),
    () => sleep(IDLE_MS),
  );
  const fleet = await whileAsking(
    () => daemon.request("status"),
    () => runCommand(fleetcom.argv("load", recipe), env),
  );
  daemon.close();

  await tmux.start();
  const control = new ControlClient(tmux.argv("-C", "attach", "-t", "keep"), env);
  await control.ready;
  const tmuxIdle = await whileAsking(
    () => control.command("display-message -p ok"),
    () => sleep(IDLE_MS),
  );
  const tmuxRun = await whileAsking(
    () => control.command("display-message -p ok"),
    () => runCommand(tmux.argv("source-file", script), env),
  );
  control.close();

  const seconds = (v: number) => `${(v / 1000).toFixed(2)}s`;
  return [
    compareLine(`load-${TASKS}-max-wait`, fleet.maxWait, tmuxRun.maxWait),
    compareLine(`load-${TASKS}-time`, fleet.elapsed, tmuxRun.elapsed, seconds),
    compareLine("load-idle-max-wait", fleetIdle.maxWait, tmuxIdle.maxWait),
  ];
}

/** Runs `work` while `ask` is repeated; the longest single answer's wait and how long `work` took. */
async function whileAsking(ask: () => Promise<unknown>, work: () => Promise<unknown>): Promise<{ maxWait: number; elapsed: number }> {
  let done = false;
  let maxWait = 0;
  const asking = (async () => {
    while (!done) {
      const asked = performance.now();
      await ask();
      maxWait = Math.max(maxWait, performance.now() - asked);
      await sleep(PACE_MS);
    }
  })();
  await sleep(50);
  const started = performance.now();
  await work();
  const elapsed = performance.now() - started;
  // The server may still be busy with what the command started; keep asking a little longer.
  await sleep(200);
  done = true;
  await asking;
  return { maxWait, elapsed };
}

/** A tmux control-mode client: one command at a time, answered by its %begin … %end block. */
class ControlClient {
  private readonly proc;
  private buffered = "";
  private waiting: (() => void)[] = [];
  readonly ready: Promise<void>;

  constructor(argv: string[], env: Record<string, string>) {
    this.proc = Bun.spawn(argv, { env, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
    const proc = this.proc;
    onCleanup(() => proc.kill("SIGKILL"));
    // The attach itself is answered first.
    this.ready = new Promise((resolve) => this.waiting.push(resolve));
    void this.read();
  }

  private async read(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.proc.stdout) {
      this.buffered += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = this.buffered.indexOf("\n")) !== -1) {
        const line = this.buffered.slice(0, newline);
        this.buffered = this.buffered.slice(newline + 1);
        if (line.startsWith("%end") || line.startsWith("%error")) this.waiting.shift()?.();
      }
    }
  }

  command(text: string): Promise<void> {
    const answered = new Promise<void>((resolve) => this.waiting.push(resolve));
    this.proc.stdin.write(`${text}\n`);
    this.proc.stdin.flush();
    return answered;
  }

  close(): void {
    this.proc.stdin.end();
    this.proc.kill();
  }
}
