// `fleetcom config [--json]`: the settings in effect and where each came from (a flag, the
// environment, a line of the config file, or the default). The daemon's own settings are the running
// daemon's, as it loaded them at start; with no daemon, what one started from this shell would use.
// Each problem with the file is one line on stderr naming the file, the line and the key.
import { defineCommand } from "citty";
import { existsSync } from "node:fs";
import { basename } from "node:path";
import { printable } from "./text-printable.ts";
import type { DaemonSettings } from "./wire-protocol.ts";
import type { Resolved, Settings } from "./settings.ts";

export default defineCommand({
  meta: { name: "config", description: "Print the settings in effect (config file, environment, defaults) and where each came from" },
  args: { json: { type: "boolean", description: "Print {file, exists, daemon, settings: {KEY: {value, source}}, problems} as JSON" } },
  async run({ args }) {
    const [{ loadSettings }, { runningDaemonStatus }] = await Promise.all([import("./settings.ts"), import("./client-recipes.ts")]);
    const here = loadSettings();
    const status = await runningDaemonStatus();
    const daemon: DaemonSettings | null = status?.settings ?? null;
    const rows = effective(here, daemon);
    const problems = [...new Set([...(daemon?.problems ?? []), ...here.problems])];
    const exists = existsSync(here.file);
    if (args.json) {
      const settings = Object.fromEntries(rows.map((r) => [r.key, { value: r.value, source: r.source }]));
      console.log(JSON.stringify({ file: here.file, exists, daemon: status?.pid ?? null, settings, problems }, null, 2));
      return;
    }
    for (const problem of problems) process.stderr.write(`fleetcom: warning: ${printable(problem)}\n`);
    // The file is named once above; a source in it is `config.toml:LINE`.
    const short = (source: string) => (source.startsWith(`${here.file}:`) ? `${basename(here.file)}${source.slice(here.file.length)}` : source);
    const width = Math.max(...rows.map((r) => r.key.length));
    const valueWidth = Math.max(...rows.map((r) => shown(r.value).length));
    console.log(`file${" ".repeat(width - 2)}${printable(here.file)}${exists ? "" : " (none: defaults and the environment)"}`);
    console.log(
      status
        ? `daemon${" ".repeat(width - 4)}pid ${status.pid}: notify, scrollback, idle_seconds and history as it read them at start (fleetcom --kill, then any command, to apply a change)`
        : `daemon${" ".repeat(width - 4)}not running: what a daemon started from this shell would use`,
    );
    for (const r of rows) {
      const later = r.later === undefined ? "" : `  (after a restart: ${printable(shown(r.later.value))}, from ${printable(short(r.later.source))})`;
      console.log(`${r.key.padEnd(width)}  ${printable(shown(r.value)).padEnd(valueWidth)}  ${printable(short(r.source))}${later}`);
    }
  },
});

interface Row {
  key: string;
  value: unknown;
  source: string;
  /** What a restarted daemon would use instead, when that differs. */
  later?: Resolved<unknown>;
}

function effective(here: Settings, daemon: DaemonSettings | null): Row[] {
  const daemonSide = (key: string, mine: Resolved<unknown>, theirs: Resolved<unknown> | undefined): Row => {
    if (!theirs) return { key, ...mine };
    const differs = JSON.stringify(theirs.value) !== JSON.stringify(mine.value);
    return { key, value: theirs.value, source: theirs.source, ...(differs && { later: mine }) };
  };
  return [
    daemonSide("notify", here.notify, daemon?.notify),
    daemonSide("scrollback", here.scrollback, daemon?.scrollback),
    daemonSide("idle_seconds", here.idleSeconds, daemon?.idleSeconds),
    daemonSide("history", here.history, daemon?.history),
    { key: "detach_key", value: here.detachKey.value.name, source: here.detachKey.source },
    { key: "confirm", value: here.confirm.value, source: here.confirm.source },
    { key: "bell", value: here.bell.value, source: here.bell.source },
  ];
}

function shown(value: unknown): string {
  if (value === null) return "(none)";
  return typeof value === "string" ? value : JSON.stringify(value);
}
