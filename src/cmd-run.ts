// `fleetcom run -- CMD…`: start a task and print its id. One word after `--` is a shell command
// line, typed as the user would type it at a prompt; several words are an argv (what `sh -c 'exit 7'`
// reaches us as), stored as the shell-quoted join that runs exactly that argv (docs/commands.md).
import { defineCommand } from "./kit-define.ts";
import { withDaemon } from "./client.ts";
import { flagIndex, isOneOf, wholeFlag } from "./kit-flags.ts";
import { RESTART_POLICIES } from "./task-restart.ts";
import { usageError } from "./errors.ts";
import { hostOf, type Target, targetIn } from "./client-target.ts";
import { printable } from "./text-printable.ts";
import { shellJoin } from "./text-shell.ts";
import { currentDirectory, resolvePath } from "./text-path.ts";
import type { WorktreeRecord } from "./recipe.ts";
import { parseMemoryLimit } from "./task-resources.ts";
import { serviceFlags } from "./recipe-services.ts";

/** The command line to store for the words after `--`. */
export function commandLine(words: readonly string[]): string {
  return words.length === 1 ? words[0]!.trim() : shellJoin(words);
}

export default defineCommand({
  facts: { remote: "transport", worktree: true, plain: true },
  meta: {
    name: "run",
    description:
      "Start a task; prints its id. A task that fails within a moment (a command not found) is said, with its last line, and exit 1: run_check in config.toml, 0.3s unless set, 0 turns it off",
  },
  args: {
    command: {
      type: "positional",
      required: false,
      valueHint: "-- CMD…",
      description: "One word is a shell command line (run -- 'make dev | tee log'); several words are an argv, run exactly as given (run -- sh -c 'exit 7')",
    },
    cwd: { type: "string", valueHint: "DIR", description: "Working directory (default: here)" },
    group: { type: "string", valueHint: "GROUP", description: "Put the task in GROUP (kill -g, logs -g, the dashboard's sections)" },
    name: { type: "string", valueHint: "NAME", description: "Give the task a display name, to name it by in other commands" },
    attach: { type: "boolean", description: "Attach this terminal to the task at once" },
    "detach-key": { type: "string", valueHint: "KEY", description: "With --attach: detach with KEY instead of Ctrl-\\ (ctrl-a, ^]…)" },
    json: { type: "boolean", description: 'Print {"id": N}' },
    // Written --no-notify: citty reads a --no- word as the flag it negates.
    notify: { type: "boolean", default: true, description: "Push nothing about it to notify's destinations: no wait, no end (docs/notify.md)" },
    restart: {
      type: "string",
      valueHint: "no|on-failure|always",
      description: "Start it again when it exits: on-failure (non-zero or a signal), always, or no (default; docs/services.md)",
    },
    "max-restarts": {
      type: "string",
      valueHint: "N",
      description: "With --restart: give up after N restarts in a row that never stayed up a minute (default 5; 0: no limit)",
    },
    // Repeatable, which citty does not keep in order: the values are read from the words (givenEnv).
    env: {
      type: "string",
      valueHint: "K=V",
      description: "Set K to V in the task's environment, over what it would get (repeatable; on a host, the one way a local value travels)",
    },
    "max-memory": {
      type: "string",
      valueHint: "SIZE",
      description: "Stop the task (with --restart: restart it) when the resident memory of all its processes passes SIZE (2G, 512M; docs/daemon.md)",
    },
    "ready-log": { type: "string", valueHint: "REGEX", description: "Ready once a line of its output matches REGEX (docs/services.md)" },
    "ready-http": { type: "string", valueHint: "URL", description: "Ready once URL answers 2xx or 3xx" },
    "ready-port": { type: "string", valueHint: "PORT", description: "Ready once a TCP connect to 127.0.0.1:PORT succeeds" },
    "ready-cmd": { type: "string", valueHint: "CMD", description: "Ready once CMD exits 0 (run in the task's directory)" },
    "ready-timeout": { type: "string", valueHint: "S", description: "Give the probe S seconds (default 60), then: not ready" },
    "stop-signal": { type: "string", valueHint: "SIG", description: "Stop it with SIG (TERM, INT, HUP, QUIT, USR1, USR2), then KILL" },
    "stop-timeout": { type: "string", valueHint: "S", description: "Seconds between the stop signal and KILL (default 2)" },
    // A flag with an optional value, which citty cannot parse: BRANCH is read from the words (worktreeBranch).
    worktree: {
      type: "boolean",
      valueHint: "[BRANCH]",
      description: "Run it in a new git worktree of the repository: on BRANCH (--worktree=BRANCH), or a new branch named after the task (docs/commands.md)",
    },
  },
  async run(context) {
    const { args, rawArgs } = context;
    const target = targetIn(context);
    const dash = rawArgs.indexOf("--");
    const flagWords = dash === -1 ? rawArgs : rawArgs.slice(0, dash);
    const branch = args.worktree ? worktreeBranch(flagWords) : null;
    const env = givenEnv(flagWords);
    // Without `--`, citty took `--worktree BRANCH`'s BRANCH for the command's first word.
    const loose = dash === -1 && branch !== null && rawArgs.includes("--worktree") ? args._.slice(1) : args._;
    const words = dash === -1 ? loose : rawArgs.slice(dash + 1);
    const command = words.length === 0 ? "" : commandLine(words);
    if (!command) throw usageError("run: give the command after --, e.g. fleetcom run -- npm run dev");
    if (args["detach-key"] !== undefined && !args.attach) throw usageError("run: --detach-key goes with --attach");
    const maxMemory = memoryLimit(args["max-memory"]);
    // Checked before the task starts: a mistyped key must not leave a task running unattached.
    const settings = args.attach ? await import("./ui-attach-settings.ts") : null;
    const detachKey = await settings?.chosenDetachKey(args["detach-key"]);
    const service = serviceFlags(args);
    const restart = restartFlags(args.restart, args["max-restarts"]);
    const cwd = args.cwd ? resolvePath(currentDirectory(), args.cwd) : undefined;
    const tree = args.worktree ? await worktreeFor(cwd ?? currentDirectory(), branch, args.name ?? command) : null;
    // One connection: the task is started, its id printed, then watched for a moment on it (a host's
    // costs no second ssh round trip). Attached, the task's end is shown and returned by attach itself.
    const run = withDaemon(target, async (c) => {
      const { id } = await c.request("run", {
        command,
        ...(tree ? { cwd: tree.cwd, worktree: tree.worktree } : cwd ? { cwd } : {}),
        ...(args.group !== undefined ? { group: args.group } : {}),
        ...(args.name !== undefined ? { name: args.name } : {}),
        ...(env ? { env } : {}),
        ...(maxMemory !== null ? { maxMemory } : {}),
        ...(service ? { service } : {}),
        ...restart,
        ...(args.notify === false && { notify: false }),
      });
      console.log(args.json ? JSON.stringify({ id }) : String(id));
      if (!args.cwd && !tree) sayWhereItRunsThere(target, id);
      // The task started: a watch that cannot finish (the daemon went) says nothing, and drops no worktree.
      const watched = args.attach ? false : (await import("./client-started.ts")).reportFailedAtOnce([id], target, c).catch(() => false);
      if (await watched) process.exitCode = 1;
      return id;
    });
    // A worktree made for a task that did not start is not left behind (it is fresh, so clean).
    const id = tree ? await run.catch(async (error) => Promise.reject(await dropped(tree.worktree, tree.newBranch, error))) : await run;
    if (args.attach) {
      const { attachTo } = await import("./ui-attach.ts");
      // A command quicker than the attach has already ended: its exit code, not its frozen screen.
      process.exitCode = await attachTo({ id }, { whenFinished: "end", detachKey, status: settings?.attachStatusSetting(), target });
    }
  },
});

/** `--max-memory SIZE` in bytes; null when not given. */
function memoryLimit(given: string | undefined): number | null {
  if (given === undefined) return null;
  const bytes = parseMemoryLimit(given);
  if (bytes === null) throw usageError(`run: --max-memory expects a size such as 2G or 512M, got ${JSON.stringify(given)}`);
  return bytes;
}

/**
 * On a host, a task without --cwd runs in the home there, whatever the directory here (the local
 * one does not travel, docs/remote.md): from a project directory that is said, so `./bin/agent.sh`
 * not found there is no surprise.
 */
function sayWhereItRunsThere(target: Target, id: number): void {
  const host = hostOf(target);
  const here = currentDirectory();
  if (host === null || here === process.env.HOME) return;
  process.stderr.write(
    `fleetcom: ${host.name}:${id} runs in ~ on ${host.name} (${printable(host.home)}), not in ${printable(here)}: --cwd DIR runs it in a directory there\n`,
  );
}

/** `--restart` and `--max-restarts` as the run op takes them; a wrong value is a usage error before anything starts. */
function restartFlags(policy: string | undefined, max: string | undefined) {
  if (policy !== undefined && !isOneOf(RESTART_POLICIES, policy)) throw usageError(`run: --restart expects no, on-failure or always, got '${policy}'`);
  const maxRestarts = wholeFlag("run: --max-restarts", max);
  if (maxRestarts !== undefined && policy === undefined) throw usageError("run: --max-restarts goes with --restart on-failure|always");
  return { ...(policy !== undefined && { restart: policy }), ...(maxRestarts !== undefined && { maxRestarts }) };
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Every `--env K=V` (or `--env=K=V`) among the words before `--`, later ones winning; null for none. */
export function givenEnv(words: readonly string[]): Record<string, string> | null {
  const env: Record<string, string> = {};
  let given = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word !== "--env" && !word.startsWith("--env=")) continue;
    const pair = word === "--env" ? words[++i] : word.slice("--env=".length);
    const at = pair?.indexOf("=") ?? -1;
    const key = pair?.slice(0, at) ?? "";
    if (pair === undefined || at === -1 || !VARIABLE_NAME.test(key)) {
      throw usageError(`run: --env expects K=V with K a variable name (letters, digits, _), got ${JSON.stringify(pair ?? "")}`);
    }
    env[key] = pair.slice(at + 1);
    given = true;
  }
  return given ? env : null;
}

/** The BRANCH of `--worktree BRANCH` or `--worktree=BRANCH` among the words before `--`; null for `--worktree` alone. */
export function worktreeBranch(words: readonly string[]): string | null {
  const at = flagIndex(words, "worktree");
  if (at === -1) return null;
  const word = words[at]!;
  if (word.includes("=")) return word.slice(word.indexOf("=") + 1) || null;
  const next = words[at + 1];
  return next !== undefined && !next.startsWith("-") ? next : null;
}

async function dropped(worktree: WorktreeRecord, newBranch: boolean, error: unknown): Promise<unknown> {
  const { dropFreshWorktree } = await import("./client-worktree.ts");
  dropFreshWorktree(worktree, newBranch);
  return error;
}

async function worktreeFor(cwd: string, branch: string | null, hint: string) {
  const [{ makeWorktree }, { loadSettings }] = await Promise.all([import("./client-worktree.ts"), import("./settings.ts")]);
  return makeWorktree(cwd, branch, hint, loadSettings().worktreeDir.value, process.env);
}
