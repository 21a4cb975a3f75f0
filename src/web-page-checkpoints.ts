// The page's Checkpoints (docs/web.md), a part of web-page.ts's script, inside its closure, shown
// under the Changes: the task's checkpoints as `fleetcom checkpoints` lists them, each row made of
// text; with --write a Rewind button on each that asks first, then rewinds through the server
// (web-checkpoints.ts), and what came of it (rewound, or refused with the file and why) shown as text.

export function checkpointsScript(): string {
  return `
  // Checkpoints: loaded with the Changes; with --write, each row rewinds to it after a confirmation.
  // A list that comes before the files above it waits for them: shown first, its rows would move
  // down under a finger about to tap Rewind when the files arrived.
  let heldCheckpoints = null;
  function loadCheckpoints() {
    heldCheckpoints = null;
    $("checkpoints-note").textContent = "loading…";
    $("checkpoints").replaceChildren();
    send(onTask({ type: "checkpoints" }));
  }

  function showCheckpoints(m) {
    if (changesLoading) {
      heldCheckpoints = m;
      return;
    }
    $("checkpoints-note").textContent = m.note || (m.checkpoints.length + (m.checkpoints.length === 1 ? " checkpoint" : " checkpoints") + ", newest first");
    $("checkpoints").replaceChildren(...m.checkpoints.map((c) => {
      const row = el("div", "checkpoint");
      row.dataset.n = c.n;
      row.append(el("span", "n", String(c.n)), el("span", "what", c.age + " ago · " + c.files + " · " + c.prompt));
      if (write) {
        const b = el("button", "rewind", "Rewind");
        b.onclick = () => confirm("Rewind task " + m.task + "'s files to checkpoint " + c.n + " (" + c.prompt + ")? Files changed since are put back, files created since deleted.") && send(onTask({ type: "rewind", n: c.n }));
        row.append(b);
      }
      return row;
    }));
  }

  function showHeldCheckpoints() {
    const m = heldCheckpoints;
    heldCheckpoints = null;
    if (m && isViewed(m)) showCheckpoints(m);
  }

  // What the rewind did or why it did nothing, as text; the files and the list then show the tree as it is now.
  function showRewound(m) {
    const out = $("rewound");
    out.textContent = m.text;
    out.className = m.ok ? "ok" : "refused";
    out.hidden = false;
    if (!m.ok) return;
    loadChanges();
    loadCheckpoints();
  }
`;
}
