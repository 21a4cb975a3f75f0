// What a client does with recipes, for `load`, `save`, `recover`, `fleetcom NAME` and the dashboard's
// w and o alike: send a recipe to the daemon in request-sized parts and say what started, describe a
// dry run, and save the live fleet. The commands and screens that use it stay leaves.
import { Buffer } from "node:buffer";
import { basename } from "node:path";
import type { DaemonClient } from "./client.ts";
import { runningDaemonStatus, withRunningDaemon } from "./client-running-daemon.ts";
import { hostOf, hostsMayBeAdded, type Target, targetOf } from "./client-target.ts";
import type { RemoteHost } from "./client-ssh.ts";
import { EXIT, UserError } from "./errors.ts";
import type { DaemonStatus, IdChange } from "./wire-protocol.ts";
import { snapshotFileName } from "./recipe-snapshot-rules.ts";
import { isOwnSnapshot } from "./recipe-snapshots.ts";
import type { HostedEntry, RecipeEntry } from "./recipe.ts";
import { sanitizeSessionName } from "./recipe-names.ts";
import { isDirectory } from "./files.ts";
import { restoreWorktrees } from "./client-worktree.ts";
import { saveSession, type LoadedRecipe } from "./recipe-sessions.ts";
import { hasRawBytes } from "./text-path.ts";
import { printable } from "./text-printable.ts";
import { cut } from "./text-width.ts";

export interface LoadResult {
  name: string;
  file: string;
  started: number[];
  /** Tasks whose run failed at once (no PTY to be had: the fd limit), each with the reason. */
  couldNotStart: { id: number; error: string }[];
  skipped: number;
  /** Entries a running task already stands for (sessions.md): not started again unless `again`. */
  alreadyRunning: number;
  /** Tasks a recovery snapshot recorded as finished: never started again (recovery.md). */
  finished: number;
  dropped: number;
  /** Recovered tasks whose recorded id was in use, and the id each got instead. */
  idsChanged: IdChange[];
  /** Entries whose `after` never held, each with why (docs/services.md); absent when none. */
  notStarted?: string[];
  /** The entries of keys naming an added host (`gpu1:/srv/train`), per host; absent when the recipe names none. */
  hosts?: HostLoad[];
}

/** What one host made of its entries: started as here, or not at all (the host did not answer), with what did not start. */
export type HostLoad =
  | ({ host: string } & Pick<LoadResult, "started" | "couldNotStart" | "skipped" | "alreadyRunning">)
  | { host: string; error: string; notStarted: { dir: string; cmd: string }[] };

export interface LoadOptions {
  /** The daemon the entries without a host of their own start on. */
  target: Target;
  /** Start entries even when a running task already stands for them (`load --again`). */
  again?: boolean | undefined;
  /** The recovery snapshot's file name: a recovery of the lost previous fleet clears the crash notice. */
  snapshot?: string | undefined;
  /** Watch the tasks started here for a moment and say on stderr each that failed at once (client-started.ts): the CLI's, not a dashboard's. */
  reportFailures?: boolean | undefined;
}

/**
 * How much of a recipe one `load` request carries. A request frame may hold 4 MiB (wire-framing.ts);
 * a 16 MiB recipe goes in several requests on one connection, in order.
 */
export const LOAD_CHUNK_BYTES = 1024 * 1024;

function nothingToLoad(recipe: LoadedRecipe): UserError {
  const said = recipe.problems.length > 0 ? ", each said above" : "";
  return new UserError(`nothing to load: ${printable(recipe.file)} holds no command (${recipe.dropped} dropped${said})`);
}

// The daemon starts one task per entry, skipping entries whose directory is missing and, unless
// `again`, entries already running. On `client` when given (a command that asked the daemon first),
// else on a connection of its own, starting a daemon when none runs.
export async function startRecipe(recipe: LoadedRecipe, options: LoadOptions, client?: DaemonClient | null): Promise<LoadResult> {
  const finished = recipe.finished?.length ?? 0;
  if (recipe.entries.length === 0) {
    // A snapshot of a fleet whose every task had finished: nothing to start, and that is the answer.
    if (finished > 0) {
      return {
        name: recipe.displayName,
        file: recipe.file,
        started: [],
        couldNotStart: [],
        skipped: 0,
        alreadyRunning: 0,
        finished,
        dropped: recipe.dropped,
        idsChanged: [],
      };
    }
    throw nothingToLoad(recipe);
  }
  const { here, elsewhere } = byHost(recipe.entries);
  // Each host's entries go to its own daemon, at once; a host that does not answer costs the others nothing.
  const hosts = Promise.all([...elsewhere].map(([name, entries]) => startOnHost(name, entries, recipe.file, options)));
  hosts.catch(() => {}); // awaited below, after the local part: not an unhandled rejection should that part fail first
  const local = here.length > 0 ? startHere(here, recipe.file, options, client) : Promise.resolve(nothingStarted());
  const { started, couldNotStart, skipped, alreadyRunning, idsChanged, notStarted } = await local;
  return {
    name: recipe.displayName,
    file: recipe.file,
    started,
    couldNotStart,
    skipped,
    alreadyRunning,
    finished,
    dropped: recipe.dropped,
    idsChanged,
    ...(notStarted && notStarted.length > 0 && { notStarted }),
    ...(elsewhere.size > 0 && { hosts: await hosts }),
  };
}

/** This machine's entries, and each added host's (without `host`: the daemon is told nothing of other hosts). */
function byHost(entries: HostedEntry[]): { here: RecipeEntry[]; elsewhere: Map<string, RecipeEntry[]> } {
  const here: RecipeEntry[] = [];
  const elsewhere = new Map<string, RecipeEntry[]>();
  for (const { host, ...entry } of entries) {
    if (!host) here.push(entry);
    else elsewhere.set(host.name, [...(elsewhere.get(host.name) ?? []), entry]);
  }
  return { here, elsewhere };
}

type Started = Pick<LoadResult, "started" | "couldNotStart" | "skipped" | "alreadyRunning" | "idsChanged" | "notStarted">;

function nothingStarted(): Started {
  return { started: [], couldNotStart: [], skipped: 0, alreadyRunning: 0, idsChanged: [] };
}

async function startHere(entries: RecipeEntry[], file: string, options: LoadOptions, client?: DaemonClient | null): Promise<Started> {
  // A task's worktree that is gone is made again from its branch before its directory is looked for.
  const worktrees = entries.flatMap((e) => e.worktree ?? []);
  if (worktrees.length > 0) for (const line of restoreWorktrees(worktrees)) process.stderr.write(`fleetcom: ${line}\n`);
  const chunks = loadChunks(entries, file);
  // An entry waits in the request that carries it: what it waits on must come in the same one.
  if (chunks.length > 1 && entries.some((e) => e.after !== undefined))
    throw new UserError(`${printable(file)}: a recipe whose entries use "after" must fit one request (${LOAD_CHUNK_BYTES} bytes)`);
  const send = (c: DaemonClient) => sendLoad(c, chunks, options);
  // A recovery is the remedy the crash notice names: it does not ask to be told of it.
  if (client) return send(client);
  const { withDaemon } = await import("./client.ts");
  return withDaemon(options.target, send, { notices: options.snapshot === undefined });
}

async function sendLoad(c: DaemonClient, chunks: RecipeEntry[][], options: LoadOptions): Promise<Started> {
  const total = nothingStarted();
  for (const entries of chunks) {
    // What an earlier part started is this load's own, never "already running" for a later part.
    const part = await c.request("load", {
      entries,
      again: options.again ?? false,
      earlier: [...total.started],
      ...(options.snapshot !== undefined && { snapshot: options.snapshot }),
    });
    total.started.push(...part.started);
    total.couldNotStart.push(...part.couldNotStart);
    total.skipped += part.skipped;
    total.alreadyRunning += part.alreadyRunning;
    total.idsChanged.push(...part.idsChanged);
    if (part.notStarted) (total.notStarted ??= []).push(...part.notStarted);
  }
  return total;
}

/**
 * How long a load waits for a host: the hosts' bound, but at least 20 s, as a cold daemon may have
 * to start there and a load is not a listing run in a loop.
 */
const HOST_LOAD_BOUND_MS = 20_000;

/** `entries` started by `name`'s daemon (its bridge starts one when none runs); a host that does not answer starts none. */
async function startOnHost(name: string, entries: RecipeEntry[], file: string, options: LoadOptions): Promise<HostLoad> {
  const [{ askHost, findHost, hostAnswerBoundMs }, { restoreWorktreesOn }] = await Promise.all([import("./client-hosts.ts"), import("./client-ssh.ts")]);
  const chunks = loadChunks(entries, file);
  const host = findHost(name);
  // The host's worktrees that are gone are made again there, by its own fleetcom, before its daemon looks for their directories.
  const worktrees = entries.flatMap((e) => e.worktree ?? []);
  const bound = Math.max(hostAnswerBoundMs(), HOST_LOAD_BOUND_MS);
  if (worktrees.length > 0)
    for (const line of await restoreWorktreesOn(host, worktrees, bound)) process.stderr.write(`fleetcom: ${name}: ${printable(line)}\n`);
  const answer = await askHost(host, (c) => sendLoad(c, chunks, { again: options.again, target: targetOf(host) }), bound);
  if ("ok" in answer) {
    const { idsChanged: _ids, ...started } = answer.ok;
    return { host: name, ...started };
  }
  return { host: name, error: answer.error, notStarted: entries.map(({ dir, cmd }) => ({ dir, cmd })) };
}

/** The added hosts a recipe's directory keys may name (`gpu1:/srv/train`); undefined when none is added (config.toml not parsed). */
export async function recipeHosts(): Promise<((name: string) => RemoteHost | null) | undefined> {
  if (!hostsMayBeAdded()) return undefined;
  const hosts = (await import("./client-hosts.ts")).readHosts();
  return hosts.length > 0 ? (name) => hosts.find((h) => h.name === name) ?? null : undefined;
}

/** Entries in request-sized runs, in order; an entry no request could carry is refused up front. */
export function loadChunks(entries: RecipeEntry[], file: string, budget = LOAD_CHUNK_BYTES): RecipeEntry[][] {
  const chunks: RecipeEntry[][] = [];
  let current: RecipeEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(JSON.stringify(entry), "utf8") + 1;
    if (size > budget) {
      throw new UserError(`${printable(file)}: an entry in ${printable(cut(entry.dir, 80))} is too large to send (${size} bytes; at most ${budget})`);
    }
    if (bytes + size > budget) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length) chunks.push(current);
  return chunks;
}

export async function loadAndDescribe(recipe: LoadedRecipe, json: boolean, options: LoadOptions, client?: DaemonClient | null): Promise<string> {
  const result = await startRecipe(recipe, options, client);
  if (options.reportFailures) {
    const { reportFailedAtOnce } = await import("./client-started.ts");
    if (await reportFailedAtOnce(result.started, options.target, client ?? undefined)) process.exitCode = EXIT.failure;
  }
  // The summary still prints, but a load that could not start everything it started on did not succeed.
  const reached = result.hosts?.flatMap((h) => ("error" in h ? [] : [h])) ?? [];
  if (result.couldNotStart.length > 0 || reached.some((h) => h.couldNotStart.length > 0)) process.exitCode = EXIT.failure;
  // An entry whose dependency failed: named with why; what did start keeps running.
  for (const line of result.notStarted ?? []) process.stderr.write(`fleetcom: ${printable(line)}\n`);
  if (result.notStarted) process.exitCode = EXIT.dependencyFailed;
  // What could start did; a host that did not answer is named with what it did not start, and the load failed.
  for (const host of result.hosts ?? []) {
    if (!("error" in host)) continue;
    process.stderr.write(`fleetcom: ${printable(host.error)}; not started there: ${notStartedList(host.notStarted)}\n`);
    process.exitCode = EXIT.unreachable;
  }
  if (json) return JSON.stringify(result);
  return loadSummary(result);
}

/** `2 task(s): python train.py (in /srv/train), make watch (in /srv/web)`, the first few. */
function notStartedList(entries: { dir: string; cmd: string }[]): string {
  const shown = entries.slice(0, 3).map((e) => `${cut(printable(e.cmd), 60)} (in ${printable(e.dir)})`);
  return `${entries.length} task(s): ${shown.join(", ")}${entries.length > shown.length ? ", …" : ""}`;
}

/**
 * `loaded 'work': 2 task(s), 3 already running (--again starts them), 0 skipped (missing directory), 0 dropped`,
 * and for a recovery whose recorded ids were not all free, a second line `ids changed: 4→67, 5→68`.
 */
export function loadSummary(result: LoadResult): string {
  const failed = result.couldNotStart.length > 0 ? `${result.couldNotStart.length} could not start (${startErrors(result)}), ` : "";
  const running = result.alreadyRunning > 0 ? `${result.alreadyRunning} already running (--again starts them), ` : "";
  const finished = result.finished > 0 ? `${result.finished} had finished (not started), ` : "";
  const counts = `${running}${finished}${result.skipped} skipped (missing directory), ${result.dropped} dropped`;
  const loaded = `loaded '${printable(result.name)}': ${result.started.length} task(s), ${failed}${counts}`;
  const lines = hadLocalPart(result) ? [loaded] : [];
  // Then one line per host that answered; one that did not is said on stderr (loadAndDescribe).
  for (const host of result.hosts ?? []) if (!("error" in host)) lines.push(hostSummary(result.name, host));
  if (result.idsChanged.length > 0) lines.push(`ids changed: ${result.idsChanged.map(({ from, to }) => `${from}→${to}`).join(", ")}`);
  return lines.join("\n");
}

/** Whether the local line says anything: always without hosts; with them, when the recipe had entries here (or dropped some). */
function hadLocalPart(result: LoadResult): boolean {
  if (!result.hosts) return true;
  return result.started.length + result.couldNotStart.length + result.skipped + result.alreadyRunning + result.finished + result.dropped > 0;
}

/** `loaded 'work' on gpu1: 2 task(s), 0 skipped (missing directory)`. */
function hostSummary(name: string, host: Exclude<HostLoad, { error: string }>): string {
  const failed = host.couldNotStart.length > 0 ? `${host.couldNotStart.length} could not start (${startErrors(host)}), ` : "";
  const running = host.alreadyRunning > 0 ? `${host.alreadyRunning} already running (--again starts them), ` : "";
  return `loaded '${printable(name)}' on ${host.host}: ${host.started.length} task(s), ${failed}${running}${host.skipped} skipped (missing directory)`;
}

/** The distinct reasons tasks could not start, a few at most: twenty of `Failed to open PTY` say it once. */
function startErrors(result: Pick<LoadResult, "couldNotStart">): string {
  const reasons = [...new Set(result.couldNotStart.map((f) => printable(f.error)))];
  return reasons.length > 3 ? `${reasons.slice(0, 3).join("; ")}; …` : reasons.join("; ");
}

/** A command that asked the running daemon (if any) first: its connection and its status, for the load that follows. */
export interface RunningDaemon {
  client: DaemonClient | null;
  status: DaemonStatus | null;
}

/** The file name the running supervisor writes its recovery snapshots to. */
export function ownSnapshotName(status: DaemonStatus | null): string | null {
  return status && snapshotFileName(new Date(status.startedAt), status.pid);
}

/**
 * Loads a recovery snapshot (`recover --latest`, `recover FILE`, the picker's recovery list). The
 * running supervisor's own snapshot describes the fleet as it is: recovering it starts nothing
 * unless `again` (sessions.md), which also starts entries already running.
 */
export async function recoverAndDescribe(recipe: LoadedRecipe, json: boolean, options: LoadOptions, running?: RunningDaemon): Promise<string> {
  const status = running ? running.status : await runningDaemonStatus(options.target);
  if (!options.again && isOwnSnapshot(recipe.file, ownSnapshotName(status))) {
    throw new UserError(
      `${printable(basename(recipe.file))} is this fleet's own snapshot (this fleet, running): its tasks are the ones running now, so nothing was started; --again starts them a second time`,
    );
  }
  // What the dead daemon's tasks left running goes first: else a program that ignores SIGHUP would run twice.
  const { endSurvivors } = await import("./client-survivors.ts");
  const ended = await endSurvivors(status?.pid ?? null);
  // Said with the summary (the dashboard shows it in its own notice); beside JSON, on stderr.
  if (ended && json) process.stderr.write(`fleetcom: ${ended}\n`);
  const summary = await loadAndDescribe(recipe, json, { ...options, snapshot: basename(recipe.file) }, running?.client);
  return ended && !json ? `${ended}\n${summary}` : summary;
}

/**
 * Prints what a load would do. The running daemon, when there is one (`client`), says which entries
 * it already runs: the real load skips those unless `again`. Starts nothing, and no daemon.
 */
export async function printDryRun(
  recipe: LoadedRecipe,
  json: boolean | undefined,
  options: { again?: boolean | undefined; client: DaemonClient | null },
): Promise<void> {
  // As the real load does: nothing to load is a failure, said the same way.
  if (recipe.entries.length === 0 && (recipe.finished ?? []).length === 0) throw nothingToLoad(recipe);
  const duplicates = options.client && !options.again ? await duplicatesOf(options.client, recipe) : [];
  console.log(json ? dryRunJson(recipe, duplicates) : dryRunText(recipe, duplicates));
}

/**
 * Which entries the local daemon already runs, in the recipe's order. Only this machine's are asked:
 * a dry run starts no daemon, and asking a host would start one there (its bridge does).
 */
async function duplicatesOf(client: DaemonClient, recipe: LoadedRecipe): Promise<boolean[]> {
  const here = recipe.entries.filter((e) => !e.host);
  const found: boolean[] = [];
  for (const entries of loadChunks(here, recipe.file)) found.push(...(await client.request("duplicates", { entries })));
  let next = 0;
  return recipe.entries.map((e) => (e.host ? false : (found[next++] ?? false)));
}

// What would start: the history file a snapshot entry brings (recover) is not part of it. A host's
// directory is that host's to look for when it loads; here it is only named, with its host.
function planned(recipe: LoadedRecipe, duplicates: readonly boolean[]) {
  const missing = new Map<string, boolean>();
  for (const { dir, host } of recipe.entries) if (!host && !missing.has(dir)) missing.set(dir, !isDirectory(dir));
  return recipe.entries.map(({ history: _history, host, ...entry }, i) => ({
    ...entry,
    ...(host && { host: host.name }),
    missing: host ? false : missing.get(entry.dir)!,
    alreadyRunning: duplicates[i] ?? false,
  }));
}

function dryRunJson(recipe: LoadedRecipe, duplicates: readonly boolean[]): string {
  return JSON.stringify({
    name: recipe.displayName,
    file: recipe.file,
    entries: planned(recipe, duplicates),
    ...(recipe.finished && { finished: recipe.finished }),
    dropped: recipe.dropped,
    problems: recipe.problems,
  });
}

/** Each dropped or doubtful entry of the recipe, one `fleetcom: …` line on stderr (recipe-problems.ts), before what the command prints. */
export function sayProblems(recipe: LoadedRecipe): void {
  for (const line of recipe.problems) process.stderr.write(`fleetcom: ${printable(line)}\n`);
}

function dryRunText(recipe: LoadedRecipe, duplicates: readonly boolean[]): string {
  const finished = recipe.finished ?? [];
  const lines = [`would load '${printable(recipe.displayName)}' from ${printable(recipe.file)}`];
  const entries = planned(recipe, duplicates);
  let currentDir: string | undefined;
  for (const entry of entries) {
    const where = entry.host ? `${entry.host}:${entry.dir}` : entry.dir;
    if (where !== currentDir) {
      currentDir = where;
      lines.push(`  ${printable(where)}${entry.missing ? "  (missing: would be skipped)" : ""}`);
    }
    lines.push(`    ${printable(entry.cmd)}${labelSuffix(entry.group, entry.name)}${entry.alreadyRunning ? "  (already running: would be skipped)" : ""}`);
  }
  // A recovery snapshot's finished tasks: one-off commands that had done their work.
  if (finished.length > 0) lines.push("  not started: had finished when the snapshot was written");
  for (const entry of finished) lines.push(`    ${printable(entry.dir)}: ${printable(entry.cmd)}${labelSuffix(entry.group, entry.name)}`);
  // As the real load counts them: an entry a running task stands for is "already running", wherever it is.
  const running = entries.filter((e) => e.alreadyRunning).length;
  const skipped = entries.filter((e) => e.missing && !e.alreadyRunning).length;
  const starting = recipe.entries.length - running - skipped;
  const alreadyRunning = running > 0 ? `, ${running} already running (would be skipped; --again starts them)` : "";
  const notStarted = finished.length > 0 ? `, ${finished.length} had finished (not started)` : "";
  lines.push(`${starting} task(s) would start${alreadyRunning}, ${skipped} skipped (missing directory)${notStarted}, ${recipe.dropped} dropped`);
  return lines.join("\n");
}

function labelSuffix(group: string | null, name: string | null): string {
  const parts = [group !== null && `group: ${printable(group)}`, name !== null && `name: ${printable(name)}`];
  const present = parts.filter(Boolean);
  return present.length ? `  [${present.join(", ")}]` : "";
}

/**
 * Saves the live fleet as session `name` (also `w` in the dashboard); returns the line to show. With
 * hosts added, every host's fleet is in it under host-qualified keys (`gpu1:~/train`); a host that
 * does not answer within the hosts' bound is left out and `leftOut` told (the dashboard, which has
 * no stderr, gets it in the returned line).
 */
export async function saveFleet(target: Target, name: string, leftOut?: (line: string) => void): Promise<string> {
  sanitizeSessionName(name); // a bad name is refused before any daemon is asked
  const { entries, missed } = await fleetRecipe(target);
  if (entries.length === 0 && missed.length > 0) throw new UserError(`${missed.join("; ")}: nothing else to save`);
  const file = saveSession(name, entries);
  const said = missed.map((m) => `${m}; its tasks are not in '${printable(name.trim())}'`);
  if (leftOut) for (const line of said) leftOut(line);
  const saved = [`saved '${printable(name.trim())}': ${entries.length} task(s) → ${printable(file)}`, ...(leftOut ? [] : said)].join("; ");
  // A recipe is text: such a name is written with U+FFFD in place of its other bytes (recipe.ts).
  const lossy = [...new Set(entries.flatMap((e) => (e.host ? [] : [e.dir])).filter(hasRawBytes))];
  if (lossy.length === 0) return saved;
  const dirs = lossy.map((d) => printable(d.toWellFormed())).join(", ");
  return `${saved}; warning: ${lossy.length === 1 ? "a directory name is" : `${lossy.length} directory names are`} not UTF-8 and saved with U+FFFD (${dirs}), so a load will skip ${lossy.length === 1 ? "it" : "them"}`;
}

/**
 * The recipe of this machine's fleet and of every added host's, and the hosts that did not answer.
 * No daemon here, no fleet here: starting one only to find it empty would leave a daemon behind for
 * nothing. A target on one host (the dashboard's `--host`) saves that host's fleet alone.
 */
async function fleetRecipe(target: Target): Promise<{ entries: HostedEntry[]; missed: string[] }> {
  const one = hostOf(target);
  const hosts = one ? [] : hostsMayBeAdded() ? (await import("./client-hosts.ts")).readHosts() : [];
  const asked = hosts.length > 0 ? askHosts(hosts) : Promise.resolve({ entries: [], missed: [] });
  asked.catch(() => {}); // awaited below, after this machine's
  const here = await withRunningDaemon(target, async (c) => (c ? c.request("recipe") : null));
  const there = await asked;
  if (here === null && hosts.length === 0) throw new UserError("no daemon is running: nothing to save");
  const local = one ? (here ?? []).map((e): HostedEntry => ({ ...e, host: one })) : (here ?? []);
  return { entries: [...local, ...there.entries], missed: there.missed };
}

/** Each host's recipe at once, within the hosts' bound, its entries keyed by the host. */
async function askHosts(hosts: RemoteHost[]): Promise<{ entries: HostedEntry[]; missed: string[] }> {
  const { askHost, hostAnswerBoundMs } = await import("./client-hosts.ts");
  const answers = await Promise.all(hosts.map((h) => askHost(h, (c) => c.request("recipe"), hostAnswerBoundMs())));
  const entries: HostedEntry[] = [];
  const missed: string[] = [];
  answers.forEach((answer, i) => {
    if ("ok" in answer) entries.push(...answer.ok.map((e): HostedEntry => ({ ...e, host: hosts[i]! })));
    else missed.push(answer.error);
  });
  return { entries, missed };
}
