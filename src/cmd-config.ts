// `fleetcom config [--json] [--reload]`: the settings in effect and where each came from (a flag, the
// environment, a line of the config file, or the default). The daemon's own settings are the running
// daemon's, as it last read them (at start, or a reload); with no daemon, what one started from this
// shell would use. Each problem with the file as it is now is one line on stderr naming the file, the
// line and the key. `--reload` has the running daemon read the file again, as SIGHUP does.
import { type Target, targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { existsSync } from "node:fs";
import { basename } from "node:path";
import { targetShown } from "./config-notify.ts";
import { printable } from "./text-printable.ts";
import { sizeWritten } from "./recipe-log.ts";
import { pushStatusText, writeStdout } from "./ui-format.ts";
import type { DaemonSettings } from "./wire-protocol.ts";
import type { Resolved, SettingChange, Settings } from "./settings.ts";

export default defineCommand({
  facts: { plain: true },
  meta: { name: "config", description: "Print the settings in effect (config file, environment, defaults) and where each came from" },
  args: {
    json: { type: "boolean", description: "Print {file, exists, daemon, settings: {KEY: {value, source}}, problems} as JSON" },
    reload: { type: "boolean", description: "Have the running daemon read the config file again (as SIGHUP does) and print what changed" },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    const [{ loadSettings, whenApplied }, { runningDaemonStatus }, { hostsMayBeAdded }, { runCheckSetting, runCheckText }] = await Promise.all([
      import("./settings.ts"),
      import("./client-running-daemon.ts"),
      import("./client-target.ts"),
      import("./config-run-check.ts"),
    ]);
    const here = loadSettings();
    if (args.reload) return reload(target, here.file, args.json);
    const status = await runningDaemonStatus(target);
    const daemon: DaemonSettings | null = status?.settings ?? null;
    // Read by run, load and recover themselves (client-started.ts), not by the daemon.
    const check = runCheckSetting();
    const rows = [...effective(here, daemon, whenApplied), { key: "run_check", value: runCheckText(check.ms), source: check.source }];
    // The file's problems as it is now; the daemon's own environment's too, which this shell may not share.
    const fromFile = (problem: string) => problem.startsWith(`${here.file}:`);
    // The validator is loaded only for a file that declares agents (config-agents.ts).
    const agentProblems = here.agents === null ? [] : (await import("./config-agents.ts")).checkedAgents(here.agents).problems;
    const runCheckProblems = check.problem === null ? [] : [check.problem];
    const problems = [...new Set([...here.problems, ...agentProblems, ...runCheckProblems, ...(daemon?.problems ?? []).filter((p) => !fromFile(p))])];
    const exists = existsSync(here.file);
    // The hosts reached over ssh (docs/remote.md), only when there are any.
    const hosts = hostsMayBeAdded() ? (await import("./client-hosts.ts")).readHosts() : [];
    if (args.json) {
      const settings = Object.fromEntries(rows.map((r) => [r.key, { value: r.value, source: r.source }]));
      const push = status?.push ?? [];
      writeStdout(
        `${JSON.stringify({ file: here.file, exists, daemon: status?.pid ?? null, settings, problems, push, ...(hosts.length && { hosts }) }, null, 2)}\n`,
      );
      return;
    }
    for (const problem of problems) process.stderr.write(`fleetcom: warning: ${printable(problem)}\n`);
    // The file is named once above; a source in it is `config.toml:LINE`.
    const short = (source: string) => (source.startsWith(`${here.file}:`) ? `${basename(here.file)}${source.slice(here.file.length)}` : source);
    const width = Math.max(...rows.map((r) => r.key.length));
    // A value too long for the table (a notify list) goes on the lines under its key, so the other
    // rows keep to the width of a terminal.
    const fits = (r: (typeof rows)[number]) => printable(shown(r.value)).length <= VALUE_COLUMN_MAX;
    const valueWidth = Math.max(0, ...rows.filter(fits).map((r) => printable(shown(r.value)).length));
    const lines = [
      `file${" ".repeat(width - 2)}${printable(here.file)}${exists ? "" : " (none: defaults and the environment)"}`,
      status
        ? `daemon${" ".repeat(width - 4)}pid ${status.pid}: as it last read the file (config --reload reads it again)`
        : `daemon${" ".repeat(width - 4)}not running: what a daemon started from this shell would use`,
    ];
    for (const r of rows) {
      const later = r.later === undefined ? "" : `  (${r.later.when}: ${printable(shown(r.later.value))}, from ${printable(short(r.later.source))})`;
      if (fits(r)) {
        lines.push(`${r.key.padEnd(width)}  ${printable(shown(r.value)).padEnd(valueWidth)}  ${printable(short(r.source))}${later}`);
        continue;
      }
      lines.push(`${r.key.padEnd(width)}  ${"↓".padEnd(valueWidth)}  ${printable(short(r.source))}${later}`);
      for (const part of valueLines(r.value, TABLE_COLUMNS - width - 4)) lines.push(`${"".padEnd(width)}    ${part}`);
    }
    // How the running daemon's sends go, one line per destination: a failing one shows here as in `status`.
    for (const p of status?.push ?? []) lines.push(`${"".padEnd(width)}  → ${printable(pushStatusText(p))}`);
    if (hosts.length) lines.push(`${"hosts".padEnd(width)}  ${hosts.map((h) => `${h.name} (ssh ${printable(h.ssh)})`).join(", ")}`);
    writeStdout(`${lines.join("\n")}\n`);
  },
});

/** Asks the running daemon to read the file again and says what changed; with no daemon, starts none. */
async function reload(target: Target, file: string, json = false): Promise<void> {
  const { withRunningDaemon } = await import("./client-running-daemon.ts");
  await withRunningDaemon(target, async (client) => {
    if (!client) {
      if (json) console.log(JSON.stringify({ daemon: null, changes: [], problems: [] }));
      else console.log(`no daemon is running: the next one reads ${printable(file)} when it starts`);
      return;
    }
    const { changes, settings } = await client.request("reload");
    if (json) return console.log(JSON.stringify({ daemon: client.daemonPid, changes, problems: settings.problems }, null, 2));
    for (const problem of settings.problems) process.stderr.write(`fleetcom: warning: ${printable(problem)}\n`);
    const read = `daemon ${client.daemonPid} read ${printable(settings.file)} again:`;
    if (changes.length === 0) return console.log(`${read} nothing changed`);
    const width = Math.max(...changes.map((c) => c.key.length));
    console.log(read);
    for (const c of changes)
      console.log(`  ${c.key.padEnd(width)}  ${printable(shown(c.from.value))} → ${printable(shown(c.to.value))}  ${APPLIES[c.applies]}`);
  });
}

const APPLIES: Record<SettingChange["applies"], string> = {
  now: "applied",
  "new tasks": "for tasks started from now on",
  restart: "waits for a restart (fleetcom --kill, then any command)",
};

interface Row {
  key: string;
  value: unknown;
  source: string;
  /** What the daemon would use after a reload or a restart from this shell, when that differs. */
  later?: Resolved<unknown> & { when: string };
}

const LATER: Record<SettingChange["applies"], string> = {
  now: "after fleetcom config --reload",
  "new tasks": "for tasks started after fleetcom config --reload",
  restart: "after a restart",
};

type WhenApplied = typeof import("./settings.ts").whenApplied;

function effective(here: Settings, daemon: DaemonSettings | null, whenApplied: WhenApplied): Row[] {
  const daemonSide = (name: Parameters<WhenApplied>[0], key: string): Row => {
    const [mine, theirs] = [here[name], daemon?.[name]];
    if (!daemon || !theirs) return { key, ...mine };
    const differs = JSON.stringify(theirs.value) !== JSON.stringify(mine.value);
    const when = LATER[whenApplied(name, { file: daemon.file, source: theirs.source }, { file: here.file, source: mine.source })];
    return { key, value: theirs.value, source: theirs.source, ...(differs && { later: { ...mine, when } }) };
  };
  return [
    daemonSide("notify", "notify"),
    daemonSide("notifyMinRuntime", "notify_min_runtime"),
    daemonSide("notifyIdle", "notify_idle"),
    daemonSide("scrollback", "scrollback"),
    daemonSide("idleSeconds", "idle_seconds"),
    daemonSide("history", "history"),
    // The most each task's log keeps on disk (docs/logs.md): the daemon reads it at its start.
    { key: "log_max", value: sizeWritten(here.logMax.value), source: here.logMax.source },
    { key: "detach_key", value: here.detachKey.value.name, source: here.detachKey.source },
    { key: "confirm", value: here.confirm.value, source: here.confirm.source },
    { key: "bell", value: here.bell.value, source: here.bell.source },
    { key: "worktree_dir", value: here.worktreeDir.value, source: here.worktreeDir.source },
  ];
}

/** The widest value shown in the table's column; a wider one goes under its key. */
const VALUE_COLUMN_MAX = 40;
/** The table fits this many columns: a value under its key is cut to what is left after the key's. */
const TABLE_COLUMNS = 100;

/** A long value's lines under its key: each destination of a list on its own, each cut to `columns`. */
function valueLines(value: unknown, columns: number): string[] {
  const parts = Array.isArray(value) && value.every((v) => typeof v === "string") ? value : [shown(value)];
  return parts.flatMap((part) => {
    const text = printable(part);
    const pieces: string[] = [];
    for (let at = 0; at < text.length; at += columns) pieces.push(text.slice(at, at + columns));
    return pieces;
  });
}

function shown(value: unknown): string {
  if (value === null || (Array.isArray(value) && value.length === 0)) return "(none)";
  // notify's destinations, as written.
  if (Array.isArray(value) && value.every((v) => typeof v === "string" || (typeof v === "object" && v !== null && "to" in v)))
    return value.map((v) => targetShown(v)).join(", ");
  return typeof value === "string" ? value : JSON.stringify(value);
}
