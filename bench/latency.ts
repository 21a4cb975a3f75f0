// latency: attached to `cat`, type one byte, time until it is echoed back on the client's side.
//
// cat runs with the line discipline in non-canonical mode and without its own echo, so the byte
// that comes back is the one cat wrote: the whole round trip client → tool → task → tool → client.
// Each sample waits for its own byte (letters in turn, escape sequences stripped, so a cursor
// move can never pass for an echo), then a carriage return puts the cursor back at column 0: the
// screen never scrolls and nothing old is redrawn in a later sample's window.
//
// latency-p50/p99 type as fast as the echoes come back (a sample every ~2 ms, the daemon kept busy);
// latency-typing-p50/p99 type one key per 100 ms, a person's pace, so every key finds both servers'
// loops idle. latency-floor-* type through bench/floor/relay.ts, the same hops as fleetcom (a client
// process, a server process holding the PTY, a Unix socket) relayed by Bun and nothing else: what
// any Bun client and server cost, beside tmux.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { compareLine, compileFloor, makeSandbox, onCleanup, percentile, PtyClient, sleep, type Sandbox } from "./common.ts";

const SAMPLES = 500;
const WARMUP = 20;
/** fleetcom and tmux take turns in blocks, so drifting machine noise hits both alike. */
const BLOCK = 50;
const LETTERS = "abcdefghijklmnopqrstuvwxyz";
export const ECHOING_CAT = "stty -icanon -echo; printf READY; exec cat";
const TYPING_SAMPLES = 120;
const TYPING_BLOCK = 20;
const TYPING_PAUSE_MS = 100;

export async function run(): Promise<string[]> {
  const sandbox = makeSandbox("latency");
  const fleetcom = await attachFleetcom(sandbox);
  const tmux = await attachTmux(sandbox);
  const floor = await attachFloor(sandbox);
  await Promise.all([measure(fleetcom, WARMUP), measure(tmux, WARMUP), measure(floor, WARMUP)]);
  const samples = { fleetcom: [] as number[], tmux: [] as number[], floor: [] as number[] };
  for (let done = 0; done < SAMPLES; done += BLOCK) {
    samples.fleetcom.push(...(await measure(fleetcom, BLOCK)));
    samples.tmux.push(...(await measure(tmux, BLOCK)));
    samples.floor.push(...(await measure(floor, BLOCK)));
  }
  const typing = { fleetcom: [] as number[], tmux: [] as number[], floor: [] as number[] };
  for (let done = 0; done < TYPING_SAMPLES; done += TYPING_BLOCK) {
    typing.fleetcom.push(...(await measure(fleetcom, TYPING_BLOCK, TYPING_PAUSE_MS)));
    typing.tmux.push(...(await measure(tmux, TYPING_BLOCK, TYPING_PAUSE_MS)));
    typing.floor.push(...(await measure(floor, TYPING_BLOCK, TYPING_PAUSE_MS)));
  }
  const lines = (name: string, of: typeof samples, against: "fleetcom" | "floor") =>
    [50, 99].map((p) => compareLine(`${name}-p${p}`, percentile(of[against], p), percentile(of.tmux, p)));
  return [
    ...lines("latency", samples, "fleetcom"),
    ...lines("latency-typing", typing, "fleetcom"),
    ...lines("latency-floor", samples, "floor"),
    ...lines("latency-floor-typing", typing, "floor"),
  ];
}

async function attachFloor({ root, env }: Sandbox): Promise<EchoClient> {
  const relay = compileFloor("relay", root);
  const socket = join(root, "relay.sock");
  const server = Bun.spawn([relay, "serve", socket, ECHOING_CAT], { env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  onCleanup(() => server.kill("SIGKILL"));
  for (let tries = 0; !existsSync(socket); tries++) {
    if (tries > 500) throw new Error("the relay floor never listened");
    await sleep(10);
  }
  return EchoClient.ready(new PtyClient([relay, "attach", socket], env));
}

async function attachFleetcom({ fleetcom }: Sandbox): Promise<EchoClient> {
  const id = await fleetcom.start(ECHOING_CAT);
  return EchoClient.ready(new PtyClient(fleetcom.argv("attach", id), fleetcom.env));
}

async function attachTmux({ tmux }: Sandbox): Promise<EchoClient> {
  await tmux.start("cat", ECHOING_CAT);
  return EchoClient.ready(new PtyClient(tmux.argv("attach", "-t", "cat"), tmux.env));
}

/** `count` round trips, one letter each, `pauseMs` apart. */
export async function measure(client: EchoClient, count: number, pauseMs = 2): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    samples.push(await client.roundTrip(LETTERS[i % LETTERS.length]!));
    client.pty.write("\r");
    await sleep(pauseMs);
  }
  return samples;
}

/** An attached client whose output is read as the text a user would see. */
export class EchoClient {
  private readonly text = new VisibleText();
  private expected: { char: number; resolve(at: number): void } | null = null;

  private constructor(readonly pty: PtyClient) {
    pty.onChunk((chunk, at) => this.receive(chunk, at));
  }

  static async ready(pty: PtyClient): Promise<EchoClient> {
    const client = new EchoClient(pty);
    await pty.waitFor("READY");
    return client;
  }

  private receive(chunk: Uint8Array, at: number): void {
    const expected = this.expected;
    if (!expected) return;
    if (this.text.visibleBytes(chunk).includes(expected.char)) {
      this.expected = null;
      expected.resolve(at);
    }
  }

  /** Types `char` and resolves with the ms until it shows on the client's screen. */
  async roundTrip(char: string): Promise<number> {
    const echoed = new Promise<number>((resolve) => (this.expected = { char: char.charCodeAt(0), resolve }));
    const started = performance.now();
    this.pty.write(char);
    const timeout = sleep(10_000).then(() => Promise.reject(new Error(`no echo of '${char}' in 10 s`)));
    return (await Promise.race([echoed, timeout])) - started;
  }
}

/**
 * Strips escape sequences and control bytes from a terminal stream, across chunk boundaries:
 * what remains is the printable text the terminal would draw.
 */
class VisibleText {
  private state: "text" | "escape" | "charset" | "csi" | "string" | "stringEscape" = "text";

  visibleBytes(chunk: Uint8Array): number[] {
    const visible: number[] = [];
    for (const byte of chunk) {
      if (this.step(byte)) visible.push(byte);
    }
    return visible;
  }

  /** Advances over one byte; true when it is drawn as text. */
  private step(byte: number): boolean {
    switch (this.state) {
      case "text":
        if (byte === 0x1b) this.state = "escape";
        return byte >= 0x20 && byte !== 0x7f && byte !== 0x1b;
      case "escape":
        if (byte === 0x5b) this.state = "csi";
        else if (byte === 0x5d || byte === 0x50 || byte === 0x5f || byte === 0x5e)
          this.state = "string"; // OSC DCS APC PM
        else if (byte >= 0x20 && byte <= 0x2f)
          this.state = "charset"; // ESC ( B and the like
        else this.state = "text";
        return false;
      case "charset":
        this.state = "text";
        return false;
      case "csi":
        if (byte >= 0x40 && byte <= 0x7e) this.state = "text";
        return false;
      case "string":
        if (byte === 0x07) this.state = "text";
        else if (byte === 0x1b) this.state = "stringEscape";
        return false;
      case "stringEscape":
        this.state = byte === 0x5c ? "text" : "string";
        return false;
    }
  }
}
