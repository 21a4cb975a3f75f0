// The command table: every subcommand in its own cmd-<name>.ts, imported only when it runs, and the
// root command's flags. The runner (cli.ts) and the completion scripts (cmd-completions.ts) read it.
import type { CommandDef } from "citty";
import { defineCommand } from "./kit-define.ts";
import { VERSION } from "./version.ts";

export type Lazy = () => Promise<CommandDef<any>>;

// Each subcommand lives in its own cmd-<name>.ts and is imported only when it runs.
export const SUBCOMMANDS: Record<string, Lazy> = {
  daemon: () => import("./cmd-daemon.ts").then((m) => m.default),
  attach: () => import("./cmd-attach.ts").then((m) => m.default),
  run: () => import("./cmd-run.ts").then((m) => m.default),
  ls: () => import("./cmd-ls.ts").then((m) => m.default),
  usage: () => import("./cmd-usage.ts").then((m) => m.default),
  peek: () => import("./cmd-peek.ts").then((m) => m.default),
  logs: () => import("./cmd-logs.ts").then((m) => m.default),
  grep: () => import("./cmd-grep.ts").then((m) => m.default),
  diff: () => import("./cmd-diff.ts").then((m) => m.default),
  merge: () => import("./cmd-merge.ts").then((m) => m.default),
  review: () => import("./cmd-review.ts").then((m) => m.default),
  checkpoints: () => import("./cmd-checkpoints.ts").then((m) => m.default),
  rewind: () => import("./cmd-rewind.ts").then((m) => m.default),
  send: () => import("./cmd-send.ts").then((m) => m.default),
  wait: () => import("./cmd-wait.ts").then((m) => m.default),
  kill: () => import("./cmd-kill.ts").then((m) => m.default),
  rm: () => import("./cmd-rm.ts").then((m) => m.default),
  rerun: () => import("./cmd-rerun.ts").then((m) => m.default),
  restart: () => import("./cmd-restart.ts").then((m) => m.default),
  rename: () => import("./cmd-rename.ts").then((m) => m.default),
  group: () => import("./cmd-group.ts").then((m) => m.default),
  tag: () => import("./cmd-tag.ts").then((m) => m.default),
  load: () => import("./cmd-load.ts").then((m) => m.default),
  sessions: () => import("./cmd-sessions.ts").then((m) => m.default),
  status: () => import("./cmd-status.ts").then((m) => m.default),
  save: () => import("./cmd-save.ts").then((m) => m.default),
  recover: () => import("./cmd-recover.ts").then((m) => m.default),
  config: () => import("./cmd-config.ts").then((m) => m.default),
  notify: () => import("./cmd-notify.ts").then((m) => m.default),
  agents: () => import("./cmd-agents.ts").then((m) => m.default),
  service: () => import("./cmd-service.ts").then((m) => m.default),
  web: () => import("./cmd-web.ts").then((m) => m.default),
  hosts: () => import("./cmd-hosts.ts").then((m) => m.default),
  bridge: () => import("./cmd-bridge.ts").then((m) => m.default),
  "restore-worktrees": () => import("./cmd-restore-worktrees.ts").then((m) => m.default),
  completions: () => import("./cmd-completions.ts").then((m) => m.completionsCommand(() => ({ root, subcommands: SUBCOMMANDS }))),
};

// The root command is the dashboard (cmd-dashboard.ts opens it); cli.ts routes to it when no subcommand is named.
export const root = defineCommand({
  meta: { name: "fleetcom", version: VERSION, description: "Supervise a fleet of terminal commands and AI coding agents" },
  args: {
    session: {
      type: "positional",
      required: false,
      description: "Load this saved session, then open the dashboard; without SESSION or COMMAND, fleetcom opens the dashboard",
    },
    version: { type: "boolean", alias: "V", description: "Print the version" },
    kill: { type: "boolean", description: "Stop the daemon and every task it owns (from a terminal, with tasks running, asks first)" },
    yes: { type: "boolean", alias: "y", description: "With --kill: do not ask" },
    foreground: { type: "boolean", description: "Run the supervisor in this process with the dashboard; its tasks end when you quit" },
    "detach-key": { type: "string", valueHint: "KEY", description: "Detach from a task with KEY instead of Ctrl-\\ (ctrl-a, ^]…; also FLEETCOM_DETACH_KEY)" },
    host: {
      type: "string",
      valueHint: "NAME",
      description: "Run the command against that host's fleet, over ssh (also FLEETCOM_HOST; fleetcom hosts add NAME)",
    },
  },
  subCommands: SUBCOMMANDS,
});
