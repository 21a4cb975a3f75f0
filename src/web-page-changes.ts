// The page's Changes view (docs/web.md), a part of web-page.ts's script, inside its closure: the
// files the task changed since it started with their counts, a file's diff on a tap, each line an
// element made of text; with --write, lines of it picked (a tap, then another for a range) and
// commented on, the comments sent as one prompt (web-changes.ts).

export function changesScript(): string {
  return `
  // Changes: the files the task changed since it started, a file's diff on a tap; with --write, lines
  // of it picked (a tap, then another for a range) and commented on, the comments sent as one prompt.
  let diffFile = null, picked = null, comments = [], changesLoading = false;
  function loadChanges() {
    changesLoading = true;
    send(onTask({ type: "changes" }));
  }

  // The files' reply has come, or an error instead: the checkpoints listed under them may show now.
  function changesSettled() {
    changesLoading = false;
    showHeldCheckpoints();
  }
  function showChangesBox(shown) {
    if (shown) showHistoryBox(false);
    $("changes-box").hidden = !shown;
    $("term").hidden = shown;
    $("changes-button").textContent = shown ? "Screen" : "Changes";
  }

  function showChanges(m) {
    const more = m.more ? " (" + m.more + " more not listed: fleetcom diff " + m.task + " --stat lists all)" : "";
    $("changes-note").textContent = m.files.length === 0 ? "no changes since the task started" : m.files.length + (m.files.length === 1 ? " file" : " files") + " changed" + more;
    $("changes-files").replaceChildren(...m.files.map((f) => {
      const b = el("button", "file");
      b.dataset.path = f.path;
      b.append(el("span", "path", f.shown), el("span", "counts", f.added === null ? "binary" : "+" + f.added + " −" + f.deleted));
      b.onclick = () => { diffFile = f.path; picked = null; $("file-diff").textContent = "loading…"; send(onTask({ type: "file-diff", path: f.path })); };
      return b;
    }));
    changesSettled();
  }

  // Each line of the diff is an element of its own, made of text; a line of the file as it is now carries its number.
  function showFileDiff(m) {
    if (m.path !== diffFile) return;
    const rows = [];
    let line = 0;
    for (const text of m.text.split("\\n")) {
      const row = el("div", text[0] === "+" && line > 0 ? "add" : text[0] === "-" && line > 0 ? "del" : "", text);
      const hunk = /^@@ -\\d+(?:,\\d+)? \\+(\\d+)/.exec(text);
      if (hunk) line = Number(hunk[1]);
      else if (line > 0 && (text[0] === "+" || text[0] === " ")) { const n = line++; row.dataset.line = n; row.onclick = () => pick(n); }
      rows.push(row);
    }
    if (m.cut) rows.push(el("div", "note", "… cut here: fleetcom diff " + m.task + " shows all"));
    $("file-diff").replaceChildren(...rows);
    $("review").hidden = !write;
    showPicked();
  }

  function pick(n) {
    picked = !picked || picked.from !== picked.to ? { from: n, to: n } : { from: Math.min(picked.from, n), to: Math.max(picked.from, n) };
    showPicked();
  }

  function showPicked() {
    for (const row of $("file-diff").querySelectorAll("[data-line]")) row.classList.toggle("picked", !!picked && +row.dataset.line >= picked.from && +row.dataset.line <= picked.to);
    $("review-lines").textContent = picked ? "lines " + picked.from + (picked.to === picked.from ? "" : "-" + picked.to) + " picked" : "tap a line, then another for a range";
    $("review-queue").textContent = comments.length ? comments.length + (comments.length === 1 ? " comment" : " comments") + " to send" : "";
  }

  function addComment() {
    const text = $("review-text").value.trim();
    if (!picked || !text) return false;
    comments.push({ file: diffFile, from: picked.from, to: picked.to, text });
    $("review-text").value = "";
    picked = null;
    showPicked();
    return true;
  }

  $("changes-button").onclick = () => {
    if (viewing === null) return;
    const shown = $("changes-box").hidden;
    showChangesBox(shown);
    if (!shown) return;
    diffFile = null;
    picked = null;
    $("changes-note").textContent = "loading…";
    $("changes-files").replaceChildren();
    $("file-diff").replaceChildren();
    $("review").hidden = true;
    $("rewound").hidden = true;
    loadChanges();
    loadCheckpoints();
  };
  $("review-add").onclick = () => addComment() || showError("pick lines of the diff and write a comment first");
  $("review").onsubmit = (e) => {
    e.preventDefault();
    addComment();
    if (comments.length === 0) return showError("pick lines of the diff and write a comment first");
    send(onTask({ type: "review", comments }));
  };
`;
}
