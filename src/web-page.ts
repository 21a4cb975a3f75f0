// The one page of the web view: its HTML, CSS and script, and the browser build of xterm.js, all
// embedded in the binary (text imports, which `bun build --compile` bundles): nothing is fetched
// from elsewhere, so the page works off-line and its Content-Security-Policy can say 'self' only.
// Made for a phone first: one column, large targets, the waiting tasks on top, the count in the title.
import xtermCss from "@xterm/xterm/css/xterm.css" with { type: "text" };
import xtermJs from "@xterm/xterm/lib/xterm.js" with { type: "text" };
import { changesScript } from "./web-page-changes.ts";
import { checkpointsScript } from "./web-page-checkpoints.ts";

export const ASSETS: Record<string, { type: string; body: string }> = {
  "/": { type: "text/html; charset=utf-8", body: html() },
  "/app.js": { type: "text/javascript; charset=utf-8", body: script() },
  "/app.css": { type: "text/css; charset=utf-8", body: css() },
  "/xterm.js": { type: "text/javascript; charset=utf-8", body: xtermJs },
  "/xterm.css": { type: "text/css; charset=utf-8", body: xtermCss },
};

function html(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="dark">
<title>fleetcom</title>
<link rel="stylesheet" href="/xterm.css">
<link rel="stylesheet" href="/app.css">
<script src="/xterm.js" defer></script>
<script src="/app.js" defer></script>
</head>
<body>
<header>
  <div class="bar"><h1 id="title">fleetcom</h1><button id="notify" hidden>Notify me</button></div>
  <p id="summary">connecting…</p>
</header>
<main>
  <section id="gate" hidden><p id="gate-text"></p></section>
  <section id="fleet" aria-label="tasks"></section>
  <section id="task" hidden>
    <div class="bar"><button id="back">← Fleet</button><h2 id="task-title"></h2><button id="mode-button">Exact</button><button id="history-button">History</button><button id="changes-button">Changes</button></div>
    <p id="task-state"></p>
    <div id="term"><div id="xterm"></div><pre id="screen-text" hidden></pre></div>
    <p id="readonly" hidden></p>
    <div id="history-box" hidden><p id="history-note"></p><pre id="history"></pre></div>
    <div id="changes-box" hidden>
      <p id="changes-note"></p><div id="changes-files"></div><div id="file-diff"></div>
      <form id="review" hidden><p id="review-lines"></p><textarea id="review-text" rows="3" placeholder="A comment on the picked lines"></textarea>
      <div class="actions"><button type="button" id="review-add">Add comment</button><button id="review-send">Send to the agent</button></div><p id="review-queue"></p></form>
      <div id="checkpoints-box"><h3>Checkpoints</h3><p id="checkpoints-note"></p><pre id="rewound" hidden></pre><div id="checkpoints"></div></div>
    </div>
    <div id="controls" hidden>
      <form id="send"><input id="text" autocomplete="off" placeholder="Type, then Send (Enter follows)"><button>Send</button></form>
      <div id="keys"></div>
      <div class="actions"><button id="rerun">Rerun</button><button id="kill" class="danger">Kill</button></div>
    </div>
  </section>
</main>
<p id="error" role="alert" hidden></p>
</body>
</html>
`;
}

function css(): string {
  return `
:root { color-scheme: dark; --bg: #111418; --card: #1b2027; --line: #2c333d; --fg: #e6e6e6; --dim: #9aa4b1; --wait: #ff5fd2; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.35 system-ui, sans-serif; }
header { position: sticky; top: 0; z-index: 1; background: var(--bg); padding: 10px 14px; border-bottom: 1px solid var(--line); }
h1 { font-size: 20px; margin: 0; }
#summary { margin: 2px 0 0; color: var(--dim); font-size: 14px; }
main { padding: 8px 10px 40px; max-width: 1400px; margin: 0 auto; }
h2 { font-size: 15px; color: var(--dim); margin: 16px 4px 6px; text-transform: uppercase; letter-spacing: .04em; }
button { font: inherit; color: var(--fg); background: #2a313b; border: 1px solid var(--line); border-radius: 10px; min-height: 48px; min-width: 48px; padding: 8px 14px; }
button:active { background: #3a4350; }
.card { display: grid; grid-template-columns: 2em 1fr auto; gap: 2px 8px; width: 100%; text-align: left; margin: 0 0 8px; background: var(--card); min-height: 64px; }
.card .glyph { grid-row: span 2; font-size: 22px; text-align: center; align-self: center; }
.card .name { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.card .age { color: var(--dim); font-size: 14px; }
.card .line { grid-column: 2 / span 2; color: var(--dim); font-size: 14px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.card.waiting { border-color: var(--wait); }
.card.waiting .glyph, .card.waiting .line { color: var(--wait); }
.bar { display: flex; gap: 10px; align-items: center; }
.bar h2 { margin: 0; text-transform: none; color: var(--fg); font-size: 17px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
/* One line, cut with an ellipsis: a state that grows (the CPU column arrives) must not move what is under a finger. */
#task-state { color: var(--dim); margin: 8px 2px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#history-box { background: #000; border-radius: 8px; padding: 4px 8px; }
#history-note { color: var(--dim); font-size: 14px; margin: 4px 0; }
#history { margin: 0; max-height: 70vh; overflow: auto; -webkit-overflow-scrolling: touch; white-space: pre-wrap; overflow-wrap: anywhere; font: 12px/1.3 ui-monospace, Menlo, monospace; }
#mode-button { margin-left: auto; }
#changes-note, #review-lines, #review-queue { color: var(--dim); font-size: 14px; margin: 4px 0; }
#changes-files .file { display: flex; justify-content: space-between; gap: 8px; width: 100%; margin: 0 0 6px; text-align: left; overflow-wrap: anywhere; }
#changes-files .counts { color: var(--dim); flex: none; }
#file-diff { background: #000; border-radius: 8px; padding: 4px 8px; max-height: 60vh; overflow: auto; font: 12px/1.35 ui-monospace, Menlo, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
#file-diff .add { color: #7ee787; } #file-diff .del { color: #ff8080; } #file-diff [data-line] { cursor: pointer; } #file-diff .picked { background: #2c3d5a; }
#checkpoints .checkpoint { display: flex; align-items: center; gap: 8px; margin: 0 0 6px; overflow-wrap: anywhere; } #checkpoints .n { flex: none; min-width: 2em; color: var(--dim); } #checkpoints .what { flex: 1; min-width: 0; }
#checkpoints-note { color: var(--dim); font-size: 14px; margin: 4px 0; } #rewound { white-space: pre-wrap; overflow-wrap: anywhere; font: 12px/1.35 ui-monospace, Menlo, monospace; } #rewound.refused { color: #ff8080; }
#review-text { width: 100%; box-sizing: border-box; font: inherit; color: var(--fg); background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 8px; }
#task .bar { gap: 6px; }
#task .bar h2 { flex: 1; min-width: 0; }
#task .bar button { flex: none; padding: 8px 10px; }
.note { color: var(--dim); margin: 0 4px 8px; }
#term { position: relative; overflow: hidden; background: #000; border-radius: 8px; padding: 4px; }
#term.exact { overflow-x: auto; }
/* In the text view the terminal stays in the page, unseen, so it keeps the screen and takes the keys typed. */
#term.text #xterm { position: absolute; top: 0; left: 0; width: 1px; height: 1px; overflow: hidden; opacity: 0; pointer-events: none; }
#screen-text { margin: 0; max-height: 65vh; overflow-y: auto; -webkit-overflow-scrolling: touch; white-space: pre-wrap; overflow-wrap: anywhere; font: 13px/1.35 ui-monospace, Menlo, monospace; }
#readonly, #gate p { color: var(--dim); font-size: 14px; margin: 10px 2px; overflow-wrap: anywhere; }
#gate { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 4px 14px; margin-top: 12px; }
#gate p { color: var(--fg); font-size: 16px; }
.card.waiting .age { color: var(--wait); }
#send { display: flex; gap: 8px; margin-top: 10px; }
#text { flex: 1; min-height: 48px; font: inherit; color: var(--fg); background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 0 12px; }
#keys, .actions { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 10px; }
.actions { justify-content: space-between; }
.danger { border-color: #a33; color: #ff8080; }
#error { position: fixed; bottom: 0; left: 0; right: 0; margin: 0; padding: 12px 14px; background: #5a1d1d; }
header .bar { justify-content: space-between; }
#notify { min-height: 40px; }
@media (min-width: 900px) {
  main { display: grid; grid-template-columns: minmax(320px, 420px) 1fr; gap: 16px; }
  #task[hidden] { display: block; visibility: hidden; }
  #back { display: none; }
}
`;
}

// The page's script, plain browser JavaScript: every task's text goes in through textContent, never
// as markup, and the terminal gets the screen the daemon serialized, as attach does.
function script(): string {
  return `"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  // viewing: the id of the task shown, on the host viewingHost (null: this machine).
  let ws = null, write = false, viewing = null, viewingHost = null, term = null, termSize = "", lastFleet = null, waitingIds = new Set(), first = true;
  // What a spent login link was told by the web view (shown when this browser has no session either).
  let loginSaid = null;
  // How the screen is shown: null follows the screen (text for a shell's, exact for a full-screen
  // app's), "text" or "exact" is the person's choice for this page.
  let modeChoice = null, fullScreen = false;

  // The session token lives in this origin's storage (scheme, host and port): no page another user
  // serves on another port of this address can read it, and the browser sends it nowhere by itself.
  const SESSION = "fleetcom-session";

  /** A URL with a login token: the token leaves the address bar at once, and is traded for a session once. */
  async function logIn() {
    const token = new URLSearchParams(location.search).get("token");
    if (token === null) return;
    history.replaceState(null, "", "/");
    const r = await fetch("/login", { method: "POST", headers: { "x-fleetcom-login": token }, cache: "no-store" }).catch(() => null);
    if (r && r.ok) localStorage.setItem(SESSION, (await r.json()).session);
    else if (r && r.status === 401) loginSaid = await r.text();
  }

  /** "in", "out" (no session, or one that is revoked: said is the web view's word on it), or "down" (the web view does not answer). */
  async function sessionState(session) {
    const r = await fetch("/session", { headers: session ? { "x-fleetcom-session": session } : {}, cache: "no-store" }).catch(() => null);
    if (r === null) return { state: "down" };
    if (r.status === 204) return { state: "in" };
    return r.status === 401 ? { state: "out", said: await r.text() } : { state: "down" };
  }

  async function connect() {
    const session = localStorage.getItem(SESSION);
    const { state, said } = await sessionState(session);
    if (state === "out") {
      localStorage.removeItem(SESSION);
      $("summary").textContent = "not logged in";
      $("gate-text").textContent = loginSaid ?? said;
      $("gate").hidden = false;
      $("fleet").hidden = true;
      $("task").hidden = true;
      return;
    }
    if (state === "down") return reconnectSoon();
    ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws", ["fleetcom", "session." + session]);
    ws.onmessage = (e) => receive(JSON.parse(e.data));
    ws.onopen = () => { if (viewing !== null) send(onTask({ type: "view" })); };
    ws.onclose = reconnectSoon;
  }
  function reconnectSoon() { $("summary").textContent = "disconnected; reconnecting…"; setTimeout(connect, 2000); }
  const send = (m) => ws && ws.readyState === 1 && ws.send(JSON.stringify(m));
  /** The message about the viewed task: its id, and its host unless it is this machine's. */
  const onTask = (m) => Object.assign(m, { task: viewing }, viewingHost === null ? {} : { host: viewingHost });
  const isViewed = (m) => m.task === viewing && (m.host ?? null) === viewingHost;
  const taskName = (card) => (card.host === null ? "" : card.host + ":") + card.id;

  function receive(m) {
    if (m.type === "hello") hello(m);
    else if (m.type === "fleet") showFleet(m.view);
    else if (m.type === "screen" && isViewed(m)) showScreen(m);
    else if (m.type === "ended" && isViewed(m)) $("task-state").textContent = "ended: " + m.reason;
    else if (m.type === "history" && isViewed(m)) showHistory(m);
    else if (m.type === "changes" && isViewed(m)) showChanges(m);
    else if (m.type === "file-diff" && isViewed(m)) showFileDiff(m);
    else if (m.type === "checkpoints" && isViewed(m)) showCheckpoints(m);
    else if (m.type === "rewound" && isViewed(m)) showRewound(m);
    else if (m.type === "reviewed" && isViewed(m)) { comments = []; showPicked(); $("review-queue").textContent = m.comments + (m.comments === 1 ? " comment" : " comments") + " sent to the agent as one prompt"; }
    else if (m.type === "error") {
      showError(m.message);
      if (changesLoading) changesSettled();
    }
    else if (m.type === "daemon" && !m.connected) $("summary").textContent = "the daemon is not running; waiting for it…";
  }

  function hello(m) {
    write = m.write;
    keyButtons(m.keys);
    $("controls").hidden = !write;
    $("readonly").hidden = write;
    $("readonly").textContent = write ? "" : "Read-only: this page can look but not type. For a link that may type, run on the machine: " + m.writeLink;
    if (term) term.options.disableStdin = !write;
  }

  function showFleet(view) {
    lastFleet = view;
    document.title = view.title;
    $("summary").textContent = view.summary;
    const fleet = $("fleet");
    // A card keeps its element from one fleet to the next, updated in place: a tap that began on a
    // card must end on the same element, and the fleet changes every second while a task prints.
    const kept = new Map();
    for (const b of fleet.querySelectorAll("button.card")) kept.set(b.dataset.key, b);
    const nodes = [];
    if (view.sections.length === 0) nodes.push(el("p", "", "No tasks. fleetcom run -- CMD starts one."));
    for (const section of view.sections) {
      nodes.push(el("h2", "", section.note ? section.title : section.title + " (" + section.cards.length + ")"));
      if (section.note) nodes.push(el("p", "note", section.note));
      for (const card of section.cards) nodes.push(fillCard(kept.get(taskName(card)) ?? newCard(), card));
    }
    // The headings are new each time: swap them in without moving the cards when the order holds.
    const order = (list) => list.map((n) => n.dataset.key ?? n.tagName + ":" + n.textContent).join("|");
    if (order([...fleet.children]) !== order(nodes)) fleet.replaceChildren(...nodes);
    notifyNewWaits(view);
    if (viewing !== null) showTaskHead();
  }

  function newCard() {
    const b = el("button", "card");
    b.append(el("span", "glyph"), el("span", "name"), el("span", "age"), el("span", "line"));
    b.onclick = () => open(Number(b.dataset.task), b.dataset.host ?? null);
    return b;
  }

  /** Sets a card's element to show the card, changing only the text that changed. */
  function fillCard(b, card) {
    const waiting = card.glyph === "!" || card.glyph === "↯";
    b.className = "card" + (waiting ? " waiting" : "");
    b.dataset.key = taskName(card);
    b.dataset.task = card.id;
    if (card.host !== null) b.dataset.host = card.host;
    const line = card.message || (waiting ? [card.state, card.preview].filter(Boolean).join(" · ") : (card.preview ? [card.preview, card.restart].filter(Boolean).join(" · ") : card.state));
    const age = card.waited === null ? card.age : "waited " + card.waited;
    const texts = [card.glyph, taskName(card) + " " + card.label, (card.use ? card.use + " · " : "") + (card.changes ? card.changes + " · " : "") + age, line];
    texts.forEach((text, i) => { if (b.children[i].textContent !== text) b.children[i].textContent = text; });
    return b;
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function findCard(id, host) {
    for (const s of (lastFleet ? lastFleet.sections : [])) for (const c of s.cards) if (c.id === id && c.host === host) return c;
    return null;
  }

  function open(id, host) {
    viewing = id;
    viewingHost = host;
    termSize = "";
    modeChoice = null;
    fullScreen = false;
    if (term) term.reset();
    showHistoryBox(false);
    showChangesBox(false);
    comments = [];
    showMode();
    $("task").hidden = false;
    if (matchMedia("(max-width: 899px)").matches) $("fleet").hidden = true;
    showTaskHead();
    send(onTask({ type: "view" }));
    window.scrollTo(0, 0);
  }

  function close() {
    viewing = null;
    viewingHost = null;
    send({ type: "view", task: null });
    $("task").hidden = true;
    $("fleet").hidden = false;
  }

  function showTaskHead() {
    const card = findCard(viewing, viewingHost);
    $("task-title").textContent = card ? taskName(card) + " " + card.label : "task " + viewing;
    const use = card && card.use ? " · CPU " + card.spark + " " + card.use : "";
    const age = card && (card.waited === null ? card.age : "waited " + card.waited);
    $("task-state").textContent = card ? card.glyph + " " + card.state + (card.message ? " · " + card.message : "") + " · " + age + use : "removed";
    $("rerun").hidden = !card || card.running;
  }

  function showScreen(m) {
    if (!term) {
      // No link is ever followed from a task's screen: the handler xterm.js calls for an OSC 8 link does nothing.
      term = new Terminal({ cols: m.cols, rows: m.rows, scrollback: 0, disableStdin: !write, fontFamily: "ui-monospace, Menlo, monospace", fontSize: fontFor(m.cols), linkHandler: { activate() {} } });
      term.open($("xterm"));
      window.fleetcomTerm = term;
      term.onData((data) => { if (write && viewing !== null) send({ type: "input", data }); });
    }
    const size = m.cols + "x" + m.rows;
    if (size !== termSize) { term.options.fontSize = fontFor(m.cols); term.resize(m.cols, m.rows); termSize = size; }
    fullScreen = m.fullScreen;
    term.write(m.data.replace(OSC, ""), showMode);
  }

  // A shell's or a log's screen is shown as text at a size a phone reads, its lines wrapped to the
  // page (as History is, with the screen's colours); a full-screen app (the alternate screen: an
  // agent's TUI, vim, top) is drawn exactly, cell for cell, since wrapping would break its boxes.
  function mode() {
    if (modeChoice !== null) return modeChoice;
    return fullScreen ? "exact" : "text";
  }

  function showMode() {
    const shown = mode();
    $("term").className = shown;
    $("task").dataset.mode = shown;
    $("screen-text").hidden = shown !== "text";
    $("mode-button").textContent = shown === "text" ? "Exact" : "Text";
    if (shown === "text" && term) drawText();
  }

  /** The terminal's screen as text: wrapped rows joined, each line's trailing blanks and the empty lines at the end left out. */
  function drawText() {
    const box = $("screen-text");
    const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
    const buffer = term.buffer.active;
    const cell = buffer.getNullCell();
    const lines = [];
    for (let y = 0; y < buffer.length; y++) {
      const row = buffer.getLine(y);
      const runs = rowRuns(row, cell);
      if (row.isWrapped && lines.length > 0) lines[lines.length - 1].push(...runs);
      else lines.push(runs);
    }
    lines.forEach(trimEnd);
    const columns = textColumns(box);
    for (let i = 0; i < lines.length; i++) lines[i] = narrowed(lines[i], columns);
    while (lines.length > 0 && lines[lines.length - 1].length === 0) lines.pop();
    const text = document.createDocumentFragment();
    lines.forEach((runs, i) => {
      if (i > 0) text.append("\\n");
      for (const run of runs) text.append(run.css === "" ? run.text : styled(run));
    });
    box.replaceChildren(text);
    if (atEnd) box.scrollTop = box.scrollHeight;
  }

  /** How many characters of the text view fit across it. */
  function textColumns(box) {
    if (!textColumns.width) {
      const probe = el("span", "", "0".repeat(10));
      probe.style.whiteSpace = "pre";
      box.append(probe);
      textColumns.width = probe.getBoundingClientRect().width / 10;
      probe.remove();
    }
    return textColumns.width > 0 ? Math.floor(box.clientWidth / textColumns.width) : Infinity;
  }

  // A rule (an agent's separator, a box's top and bottom) and the blanks that pad a box's row out to
  // its right edge are there to fill the terminal's width: on a narrower page they give up what does
  // not fit, so the box is drawn whole instead of wrapping over three lines.
  const RULE = "─━═";
  const EDGE = "│┃║";
  function narrowed(runs, columns) {
    const chars = [];
    for (const run of runs) for (const ch of run.text) chars.push({ ch, css: run.css });
    let excess = chars.length - columns;
    if (excess <= 0) return runs;
    const stretch = longestRule(chars) ?? edgePadding(chars);
    if (stretch === null) return runs;
    chars.splice(stretch.end - Math.min(excess, stretch.length - 1), Math.min(excess, stretch.length - 1));
    const out = [];
    for (const { ch, css } of chars) {
      const last = out[out.length - 1];
      if (last && last.css === css) last.text += ch;
      else out.push({ text: ch, css });
    }
    return out;
  }

  /** The longest run of one rule character, four or more: its end (exclusive) and length. */
  function longestRule(chars) {
    let best = null;
    for (let i = 0; i < chars.length; ) {
      let j = i;
      while (j < chars.length && chars[j].ch === chars[i].ch) j++;
      if (RULE.includes(chars[i].ch) && j - i >= 4 && (best === null || j - i > best.length)) best = { end: j, length: j - i };
      i = j;
    }
    return best;
  }

  /** The blanks before a row's closing edge (│), when the row ends on one. */
  function edgePadding(chars) {
    const last = chars.length - 1;
    if (last < 1 || !EDGE.includes(chars[last].ch)) return null;
    let i = last;
    while (i > 0 && chars[i - 1].ch === " ") i--;
    return last - i >= 2 ? { end: last, length: last - i } : null;
  }

  /** A row as runs of text of one style each; the second cell of a wide character is skipped. */
  function rowRuns(row, cell) {
    const runs = [];
    for (let x = 0; x < row.length; x++) {
      row.getCell(x, cell);
      if (cell.getWidth() === 0) continue;
      const text = cell.getChars() || " ";
      const css = cellCss(cell);
      const last = runs[runs.length - 1];
      if (last && last.css === css) last.text += text;
      else runs.push({ text, css });
    }
    return runs;
  }

  /** Blanks at a line's end are no text, unless they are coloured (a bar, a selection). */
  function trimEnd(runs) {
    while (runs.length > 0) {
      const last = runs[runs.length - 1];
      if (last.css.includes("background")) return;
      last.text = last.text.trimEnd();
      if (last.text !== "") return;
      runs.pop();
    }
  }

  function styled(run) {
    const span = el("span", "", run.text);
    span.style.cssText = run.css;
    return span;
  }

  function cellCss(cell) {
    let fg = colour(cell.isFgRGB(), cell.isFgPalette(), cell.getFgColor());
    let bg = colour(cell.isBgRGB(), cell.isBgPalette(), cell.getBgColor());
    if (cell.isInverse()) [fg, bg] = [bg ?? "#000000", fg ?? "#e6e6e6"];
    return (fg ? "color:" + fg + ";" : "") + (bg ? "background:" + bg + ";" : "") + (cell.isBold() ? "font-weight:bold;" : "") +
      (cell.isItalic() ? "font-style:italic;" : "") + (cell.isUnderline() ? "text-decoration:underline;" : "") + (cell.isDim() ? "opacity:.65;" : "");
  }

  // xterm.js's own 16 colours, then the 6x6x6 cube and the grey ramp of the 256.
  const ANSI = ["#2e3436", "#cc0000", "#4e9a06", "#c4a000", "#3465a4", "#75507b", "#06989a", "#d3d7cf", "#555753", "#ef2929", "#8ae234", "#fce94f", "#729fcf", "#ad7fa8", "#34e2e2", "#eeeeec"];
  const hex = (n) => n.toString(16).padStart(2, "0");
  function colour(rgb, palette, value) {
    if (rgb) return "#" + value.toString(16).padStart(6, "0");
    if (!palette) return null;
    if (value < 16) return ANSI[value];
    if (value >= 232) { const g = 8 + 10 * (value - 232); return "#" + hex(g) + hex(g) + hex(g); }
    const steps = [0, 95, 135, 175, 215, 255], n = value - 16;
    return "#" + hex(steps[Math.floor(n / 36)]) + hex(steps[Math.floor(n / 6) % 6]) + hex(steps[n % 6]);
  }
  // Operating system commands (links, titles, the clipboard): a screen the web view sends has none, and one that did would lose them here.
  const OSC = /(?:\\x1b\\]|\\x9d)[^\\x07\\x1b\\x9c]*(?:\\x07|\\x1b\\\\|\\x9c)?/g;

  // The history in place of the screen (or the screen again); the text goes in as text, never as markup.
  function showHistoryBox(shown) {
    if (shown) showChangesBox(false);
    $("history-box").hidden = !shown;
    $("term").hidden = shown;
    $("history-button").textContent = shown ? "Screen" : "History";
  }

  function showHistory(m) {
    const rest = "fleetcom logs " + m.task + " prints all it printed";
    $("history-note").textContent = m.cut ? "the last " + m.lines + " lines (" + rest + ")" : m.lines + " line" + (m.lines === 1 ? "" : "s") + " of scrollback (" + rest + ")";
    const pre = $("history");
    pre.textContent = m.text;
    pre.scrollTop = pre.scrollHeight;
  }

  // The task's columns across the phone's width while they stay readable; past that the terminal scrolls sideways.
  function fontFor(cols) {
    const width = Math.max(200, $("term").clientWidth - 8);
    return Math.max(7, Math.min(15, Math.floor(width / (cols * 0.61))));
  }

  function keyButtons(keys) {
    const box = $("keys");
    box.replaceChildren();
    for (const key of keys) {
      const b = el("button", "", key);
      b.onclick = () => viewing !== null && send(onTask({ type: "keys", keys: [key] }));
      box.append(b);
    }
  }

  function notifyNewWaits(view) {
    const now = new Set();
    const waits = new Map();
    for (const s of view.sections) for (const c of s.cards) if (c.glyph === "!") { now.add(taskName(c)); waits.set(taskName(c), c); }
    if ("Notification" in window && Notification.permission === "granted" && document.hidden && !first)
      for (const [name, c] of waits) if (!waitingIds.has(name)) new Notification("fleetcom: " + c.label + " waits", { body: c.message || c.state });
    waitingIds = now;
    first = false;
  }

  function showError(message) {
    const e = $("error");
    e.textContent = message;
    e.hidden = false;
    clearTimeout(showError.timer);
    showError.timer = setTimeout(() => (e.hidden = true), 6000);
  }

  $("back").onclick = close;
  $("mode-button").onclick = () => { modeChoice = mode() === "text" ? "exact" : "text"; showMode(); };
  // In the text view the unseen terminal still takes the keys: a tap on the screen gives it the focus.
  $("term").onclick = () => term && write && term.focus();
  $("send").onsubmit = (e) => { e.preventDefault(); const t = $("text"); if (viewing !== null && t.value) { send(onTask({ type: "send", text: t.value })); t.value = ""; } };
  $("rerun").onclick = () => viewing !== null && send(onTask({ type: "rerun" }));
  $("kill").onclick = () => { const c = findCard(viewing, viewingHost); if (viewing !== null && confirm("Kill task " + (c ? taskName(c) + " (" + c.label + ")" : viewing) + "?")) send(onTask({ type: "kill" })); };
  $("history-button").onclick = () => {
    if (viewing === null) return;
    const shown = $("history-box").hidden;
    showHistoryBox(shown);
    if (!shown) return;
    $("history-note").textContent = "loading…";
    $("history").textContent = "";
    send(onTask({ type: "history" }));
  };
${changesScript()}${checkpointsScript()}  if ("Notification" in window && Notification.permission === "default") {
    $("notify").hidden = false;
    $("notify").onclick = () => Notification.requestPermission().then(() => ($("notify").hidden = true));
  }
  logIn().then(connect);
})();
`;
}
