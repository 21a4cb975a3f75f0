// reattach: a task has filled 2,000 lines of scrollback and then drawn a full-screen app on the
// alternate screen; time from starting the attach client in a PTY until the screen is drawn. The
// app draws a marker on its last row last, and the clock stops when the marker reaches the
// client. Target ≤ 50 ms for fleetcom; tmux (which sends only the visible screen) for scale. Each
// client leaves by its detach key (fleetcom's is Ctrl-\ then d), so each tool's round starts right
// after the other's: a lone Ctrl-\ only opened fleetcom's menu, the client was killed after 5 s, and
// every tmux round began after those 5 idle seconds while every fleetcom round began warm.
import { alternate, compareLine, makeSandbox, median, PtyClient, ROWS, sleep } from "./common.ts";

const RUNS = 10;
const MARK = "REATTACH-MARK";

/** Scrollback first, then a coloured full-screen app with the marker on its bottom row. */
const FULL_SCREEN_APP = [
  `seq -f 'scrollback line %g of the task history' 1 ${2000 + ROWS}`,
  `printf '\\033[?1049h\\033[H\\033[2J'`,
  `i=1; while [ $i -lt ${ROWS} ]; do printf '\\033[3%dm row %02d \\033[7m full-screen app \\033[0m\\r\\n' $((i % 8)) $i; i=$((i + 1)); done`,
  `printf '\\033[${ROWS};1H\\033[1m${MARK}\\033[0m'`,
  "exec sleep 3600",
].join("; ");

export async function run(): Promise<string[]> {
  const { fleetcom, tmux } = makeSandbox("reattach");
  const id = await fleetcom.start(FULL_SCREEN_APP);
  await tmux.start("app", FULL_SCREEN_APP);
  await untilDrawn(() => tmux.run("capture-pane", "-p", "-t", "app"));
  await untilDrawn(() => fleetcom.run("peek", id));
  const times = await alternate(
    RUNS,
    () => timeReattach(fleetcom.argv("attach", id), fleetcom.env, (client) => client.write("\x1cd")),
    () => timeReattach(tmux.argv("attach", "-t", "app"), tmux.env, () => tmux.run("detach-client", "-s", "app")),
  );
  return [compareLine("reattach", median(times.fleetcom), median(times.tmux))];
}

async function untilDrawn(screen: () => Promise<string>): Promise<void> {
  for (let tries = 0; tries < 600; tries++) {
    if ((await screen()).includes(MARK)) return;
    await sleep(50);
  }
  throw new Error("the full-screen app never drew its marker");
}

async function timeReattach(argv: string[], env: Record<string, string>, detach: (client: PtyClient) => unknown): Promise<number> {
  const started = performance.now();
  const client = new PtyClient(argv, env);
  const drawn = await client.waitFor(MARK, 10_000);
  await detach(client);
  await client.close();
  return drawn - started;
}
