// The session picker: saved sessions (by stored name, ignoring case, so `a/b` shows as `a/b`, not
// as its file's `a_b`) and, behind Tab while any exist, the recovery snapshots newest first. Ctrl-R
// renames and Ctrl-D deletes the listed file in place, with the same rules as `fleetcom sessions`.
import type { Target } from "./client-target.ts";
import { requireTerminal } from "./ui-attach.ts";
import { loadAndDescribe, ownSnapshotName, recipeHosts, recoverAndDescribe, type LoadOptions } from "./client-recipes.ts";
import { runningDaemonStatus } from "./client-running-daemon.ts";
import { SAVE_HINT, snapshotListRow } from "./ui-format.ts";
import { age } from "./view-task.ts";
import { byNameIgnoringCase } from "./text-order.ts";
import { printable } from "./text-printable.ts";
import { pick, type PickItem, type PickList, type PickerOptions } from "./ui-picker.ts";
import { listSnapshots, snapshotByPath } from "./recipe-snapshots.ts";
import { recoveryDir, sessionDir } from "./paths.ts";
import { listSessions, loadRecipe, removeSessionFile, renameSessionFile, type LoadedRecipe, type SessionInfo } from "./recipe-sessions.ts";
import { currentDirectory } from "./text-path.ts";
import type { DirContext } from "./recipe.ts";

export type PickedSession = { kind: "saved" | "recovery"; recipe: LoadedRecipe };

type Source = { kind: "saved"; session: SessionInfo } | { kind: "recovery"; file: string };

export function sessionsByName(sessions: SessionInfo[]): SessionInfo[] {
  return [...sessions].sort((a, b) => byNameIgnoringCase(a.name, b.name));
}

function savedRow(s: SessionInfo, now: number): string {
  const when = `${age(s.modified, now)} ago`;
  if (s.damaged !== null) return `${printable(s.name)} · damaged · ${when}`;
  return `${printable(s.name)} · ${s.tasks} task(s) · ${s.dirs.map(printable).join(", ")} · ${when}`;
}

/** Saved sessions; `hosts` names the added hosts, so a host's directory reads `gpu1:~/train` as in `fleetcom sessions`. */
const savedList = (hosts: DirContext["host"]): PickList<Source> => ({
  id: "saved",
  title: "Saved sessions",
  tabName: "saved",
  pickHint: "load",
  empty: "no saved sessions (w in the dashboard or fleetcom save NAME saves one)",
  items: () => {
    const now = Date.now();
    return sessionsByName(listSessions(process.env, currentDirectory(), hosts)).map((session) => ({
      key: session.file,
      text: savedRow(session, now),
      match: session.name,
      value: { kind: "saved", session },
      unavailable: session.damaged === null ? undefined : `cannot load: ${printable(session.damaged)}`,
    }));
  },
  actions: [
    {
      key: "ctrl-r",
      hint: "^R rename",
      async run(item, tools) {
        if (item.value.kind !== "saved") return;
        const old = item.value.session.name;
        const name = await tools.ask(`Rename session '${printable(old)}' to`, old);
        if (name === null || name.trim() === old) return;
        // The file listed, not a lookup by name: a hand-edited `name` may differ from the file's stem.
        const file = renameSessionFile(item.value.session.file, name);
        tools.highlight(file);
        tools.say(`renamed '${printable(old)}' to '${printable(name.trim())}'`);
      },
    },
    {
      key: "ctrl-d",
      hint: "^D delete",
      async run(item, tools) {
        if (item.value.kind !== "saved") return;
        const name = item.value.session.name;
        if (!(await tools.confirm(`Delete session '${printable(name)}'?`))) return tools.say("nothing deleted");
        removeSessionFile(item.value.session.file);
        tools.say(`deleted '${printable(name)}'`);
      },
    },
  ],
});

/** The recovery list; `own` is the running supervisor's snapshot file name, marked "this fleet, running". */
const recoveryList = (own: string | null): PickList<Source> => ({
  id: "recovery",
  title: "Recovery snapshots",
  tabName: "recovery",
  pickHint: "load",
  empty: "no recovery snapshots",
  items: () => {
    const now = Date.now();
    return listSnapshots(process.env, process.cwd(), own).map(
      (s): PickItem<Source> => ({
        key: s.file,
        text: snapshotListRow(s, now),
        match: snapshotListRow(s, now),
        value: { kind: "recovery", file: s.file },
        unavailable: s.damaged === null ? undefined : `cannot load: ${printable(s.damaged)}`,
      }),
    );
  },
});

/** Null when the user cancelled. The caller loads the recipe and reports it. */
export async function pickSession(
  target: Target,
  options: { start: "saved" | "recovery" } & Omit<PickerOptions<Source>, "lists" | "start">,
): Promise<PickedSession | null> {
  const [own, hosts] = await Promise.all([runningDaemonStatus(target).then(ownSnapshotName), recipeHosts()]);
  const picked = await pick({ ...options, lists: [savedList(hosts), recoveryList(own)], start: options.start === "saved" ? 0 : 1 });
  if (!picked) return null;
  const source = picked.value;
  if (source.kind === "recovery") return { kind: "recovery", recipe: snapshotByPath(source.file) };
  return { kind: "saved", recipe: loadRecipe(source.session.file, currentDirectory(), process.env, hosts) };
}

export function hasSnapshots(): boolean {
  return listSnapshots().length > 0;
}

/**
 * `fleetcom load` and `fleetcom recover` without an argument: pick, load, print what `load NAME`
 * prints. Cancelling loads nothing and exits 0.
 */
export async function pickAndLoad(start: "saved" | "recovery", json: boolean, options: LoadOptions): Promise<void> {
  requireTerminal(`${start === "saved" ? "load" : "recover"} without an argument (the picker)`);
  const empty = start === "saved" ? listSessions().length === 0 && !hasSnapshots() : !hasSnapshots();
  if (empty) {
    const what =
      start === "saved" ? `no saved sessions or recovery snapshots (in ${printable(sessionDir())})` : `no recovery snapshots (in ${printable(recoveryDir())})`;
    console.log(what);
    return;
  }
  const picked = await pickSession(options.target, { start });
  if (!picked) return;
  console.log(await describePicked(picked, json, options));
  if (picked.kind === "recovery" && !json) console.log(SAVE_HINT);
}

/** Loads what the picker picked: a snapshot as a recovery (the running fleet's own is refused), a session as a load. */
export function describePicked(picked: PickedSession, json: boolean, options: LoadOptions): Promise<string> {
  return picked.kind === "recovery" ? recoverAndDescribe(picked.recipe, json, options) : loadAndDescribe(picked.recipe, json, options);
}
