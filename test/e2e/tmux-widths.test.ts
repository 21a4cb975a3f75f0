// tmux as the oracle for character widths: the same bytes printed in a tmux pane directly, and in a
// fleetcom task shown in another pane (attached live, attached again after a detach, and `peek`)
// must give the same text. A width the daemon's terminal gets wrong moves every later cell of the
// row: each sample is followed by a `|` right after it and one placed at column 30.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isProcessAlive } from "../../src/platform.ts";
import { eachTestGetsAFleet, type Fleet, until } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";
import { shellWords, Tmux } from "../harness/tmux.ts";
import { CORPUS } from "../harness/width-corpus.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));
let tmux: Tmux | undefined;
afterEach(() => tmux?.kill());

const SIZE = { cols: 80, rows: 30 };

function corpusBytes(): string {
  let out = "";
  for (const [name, sample] of CORPUS) out += `${name.padEnd(13)}${sample}|\x1b[30G|after\r\n`;
  // A wide character that no longer fits in the last column moves to the next row.
  out += `edge\x1b[${SIZE.cols}G\u6F22|\r\n`;
  out += "done\r\n";
  return out;
}

/** Waits for Enter with echo off, then prints the corpus: the same in a pane and in a task. */
function corpusScript(dir: string): string {
  const corpus = join(dir, "corpus.txt");
  writeFileSync(corpus, corpusBytes());
  const script = join(dir, "corpus.sh");
  writeFileSync(script, `stty -echo\nprintf 'waiting for Enter'\nread x\nprintf '\\r\\033[K'\ncat '${corpus}'\nexec sleep 600\n`);
  return `sh '${script}'`;
}

const printedAll = (text: string) => text.split("\n").includes("done");

describe.skipIf(!Tmux.available())(`character widths against tmux ${Tmux.available() ? Tmux.version() : ""}`, () => {
  test("emoji, ZWJ sequences, flags, CJK, combining marks and box drawing land in the same columns in tmux, attached, reattached and in peek", async () => {
    tmux = new Tmux(fleet.env, fleet.sandbox.root);
    const script = corpusScript(fleet.sandbox.root);
    tmux.window("direct", script, SIZE);
    await tmux.waitFor("direct", "the prompt", (t) => t.includes("waiting for Enter"));
    tmux.press("direct", "Enter");
    const direct = await tmux.waitFor("direct", "the corpus", printedAll);

    const id = await fleet.run(script);
    const attach = shellWords(fleetcomArgv(["attach", String(id)]));
    tmux.window("fleetcom", attach);
    await tmux.waitFor("fleetcom", "the task's prompt", (t) => t.includes("waiting for Enter"));
    await tmux.waitForRawMode("fleetcom");
    tmux.press("fleetcom", "Enter");
    expect(await tmux.waitFor("fleetcom", "the corpus, attached", printedAll)).toBe(direct);

    tmux.press("fleetcom", "C-\\");
    tmux.press("fleetcom", "d");
    await tmux.waitForExit("fleetcom");
    tmux.respawn("fleetcom", attach);
    expect(await tmux.waitFor("fleetcom", "the corpus, reattached", printedAll)).toBe(direct);

    const peeked = (await fleet.peek(id))
      .split("\n")
      .map((row) => row.trimEnd())
      .join("\n")
      .trimEnd();
    expect(peeked).toBe(direct);
  });
});

describe.skipIf(!Tmux.available())("the tmux oracle itself", () => {
  test("kill() ends its server even when the sandbox holding its socket was removed first", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fleetcom-tmux-"));
    const own = new Tmux(fleet.env, dir);
    own.window("shell", "exec sleep 600");
    const pid = Number(own.cmd("display-message", "-p", "#{pid}").trim());
    rmSync(dir, { recursive: true, force: true });
    own.kill();
    await until("the tmux server to end", () => !isProcessAlive(pid));
  });
});
