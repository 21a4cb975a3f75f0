// The recipe file format of sessions.md, as pure functions: file names from session names, tolerant
// parsing (wrapped and flat shapes, versions, dropped entries, `~` and relative directory keys) and
// byte-stable formatting. No I/O here: recipe-sessions.ts reads and writes, the daemon formats snapshots.
import { tildePath } from "./paths.ts";
import { Buffer } from "node:buffer";
import { resolve } from "node:path";
import { UserError } from "./errors.ts";
import { normalizeGroup, normalizeName } from "./task-labels.ts";
import { entryPlace, entryProblems, notAList } from "./recipe-problems.ts";
import { describeJsonError } from "./text-json-error.ts";
import { printable } from "./text-printable.ts";
import { resolvePath } from "./text-path.ts";
import { schema } from "./validator.ts";
import { checkOrder, type OrderedEntry, readServiceFields, serviceFields, type ServiceFields, serviceRefusal } from "./recipe-services.ts";
import { RESTART_POLICIES } from "./task-restart.ts";

export const NEWEST_VERSION = 1;
/** The longest command fleetcom starts, the Rust original's limit: longer is refused, never cut. */
export const MAX_COMMAND_BYTES = 64 * 1024;

/** Why `cmd` cannot be started, or null: UTF-8 bytes count, as the shell will see them. */
export function commandTooLong(cmd: string): string | null {
  if (cmd.length * 3 <= MAX_COMMAND_BYTES) return null;
  const bytes = Buffer.byteLength(cmd, "utf8");
  return bytes > MAX_COMMAND_BYTES ? `command too long (${bytes} bytes; at most 64 KiB)` : null;
}

/**
 * The id a recovery snapshot records for each task, so that a recovery gives it back (daemon-task-ids.ts).
 * Bounded far below 2^53: past it the daemon's counter could no longer count up to a new id.
 */
const recordedId = schema("recordedId", (type) => type("1 <= number.integer <= 2147483647"));

/**
 * The git worktree fleetcom made for a task (`run --worktree`, client-worktree.ts): the repository
 * it belongs to, its branch and its path, which is the task's directory or holds it. Saves and
 * snapshots keep it, so a load recreates a missing one from its branch. `from`: the branch it was made
 * from, where `merge` lands it (absent when that was a detached HEAD, or in a record from before).
 */
// SECURITY: a recipe is any file handed to `load`, and its record's words reach git's command line:
// an absolute path and a branch name that git's own rules allow (check-ref-format), never starting
// with '-', so no word of it can be taken for an option (`--orphan`, `-f`).
const worktreeDirectory = schema("worktreeRecord.directory", (type) => type(/^\/[^\0\n\r]*$/));
const worktreeBranch = schema("worktreeRecord.branch", (type) =>
  type(/^(?![-/.])(?!.*(?:\.\.|@\{|\/\/|\/\.|\.lock\/))(?!@$)[^\x00-\x20\x7f~^:?*[\\]+(?<![/.]|\.lock)$/),
);
export const worktreeRecord = schema("worktreeRecord", (type) =>
  type({ repo: worktreeDirectory.type(), branch: worktreeBranch.type(), path: worktreeDirectory.type(), "from?": worktreeBranch.type() }),
);
export type WorktreeRecord = typeof worktreeRecord.infer;

/**
 * A task's baseline (git.ts, docs/review.md): only snapshots keep it, so a recovered task diffs
 * against the baseline it had. SECURITY: its words reach git's command line: an absolute path, a
 * full object id, and a ref under `refs/fleetcom/` of plain characters, none of them an option.
 */
export const baselineRecord = schema("baselineRecord", (type) =>
  type({ top: worktreeDirectory.type(), commit: /^[0-9a-f]{40}([0-9a-f]{24})?$/, ref: /^refs\/fleetcom\/[A-Za-z0-9._-]+$/ }),
);

/**
 * A task's checkpoints (git-checkpoint.ts): only snapshots keep them, so a recovered task can still
 * be rewound. SECURITY: as the baseline's, the commit and ref reach git (`update-ref --stdin`, one
 * line each): a full object id and a ref of plain characters, no space or newline to add a command.
 */
export const checkpointRecord = schema("checkpointRecord", (type) =>
  type({
    n: "0 <= number.integer <= 1000000000",
    at: "string",
    prompt: "string",
    files: "number.integer >= 0 | null",
    commit: /^[0-9a-f]{40}([0-9a-f]{24})?$/,
    ref: /^refs\/fleetcom\/[A-Za-z0-9._-]+$/,
    skipped: "string[]",
  }),
);

/** A restart policy as `run --restart` and a recipe's `restart` name it (task-restart.ts). */
export const restartPolicy = schema("restartPolicy", (type) => type.enumerated(...RESTART_POLICIES));
const restartCount = schema("restartCount", (type) => type("0 <= number.integer <= 1000000"));

// One command to start, as a load sees it: `dir` is absolute, group and name already normalised.
// `history` is the key of the task's kept history in a snapshot (recipe-history.ts): as read from a
// snapshot, the key; as `recover` sends it to the daemon, the path of the history file. `id` is the
// task's id a snapshot recorded; `typed`, the command as its user typed it where `cmd` is what fleetcom
// stored (an agent's resume form). Saves never write them and loads of a saved session never send them.
// `restart` and `max_restarts` are the task's restart policy (docs/services.md), written only when
// set; `restarts`, how many restarts the policy made, only in a snapshot, which a recovery keeps.
export const recipeEntry = schema("recipeEntry", (type) =>
  type({
    dir: "string",
    cmd: "string",
    group: "string | null",
    name: "string | null",
    "history?": "string",
    "id?": recordedId.type(),
    "typed?": "string",
    "worktree?": worktreeRecord.type(),
    "baseline?": baselineRecord.type(),
    "checkpoints?": checkpointRecord.type().array(),
    "restart?": restartPolicy.type(),
    "max_restarts?": restartCount.type(),
    "restarts?": restartCount.type(),
    /** Written only when false: nothing about the task is pushed (docs/notify.md). */
    "notify?": "false",
  }).and(serviceFields.type()),
);
export type RecipeEntry = typeof recipeEntry.infer;

// One element of a directory's array in a file: a plain command, or an object with a string `cmd`
// and optional string `group` / `name`. Extra members are ignored with a warning; anything else, and
// an empty command, is dropped on load, with a line saying why (recipe-problems.ts).
export const storedEntry = schema("storedEntry", (type) => type("string").or({ cmd: "string", "group?": "string", "name?": "string" }));
export type StoredEntry = typeof storedEntry.infer;

// The wrapped form exactly as fleetcom writes it; loading accepts more (flat files, dropped entries).
export const storedRecipe = schema("storedRecipe", (type) =>
  type({
    version: `1 <= number.integer <= ${NEWEST_VERSION}`,
    name: "string",
    dirs: type({ "[string]": storedEntry.type().array() }),
  }),
);
export type StoredRecipe = typeof storedRecipe.infer;

/**
 * An added host a directory key names (`"gpu1:/srv/train"`, docs/remote.md): its name, and its home
 * there, which `gpu1:~/…` keys are relative to.
 */
export type RecipeHost = { name: string; home: string };

/**
 * An entry as a recipe file holds it: `host`, the added host whose key named it; absent, this
 * machine. The daemon never sees `host`: a load sends each host's entries to that host's daemon.
 */
export type HostedEntry = RecipeEntry & { host?: RecipeHost };

/**
 * `finished`: what a recovery snapshot records apart, the tasks that had already finished when it was
 * written (recovery.md): shown by a dry run, never started by a load. Sessions have none.
 */
export type ParsedRecipe = {
  name: string | null;
  entries: HostedEntry[];
  finished?: RecipeEntry[];
  dropped: number;
  /** One line per dropped or doubtful entry, naming the file, directory, index and member (recipe-problems.ts). */
  problems: string[];
};
/**
 * `host`: the added host called `name`, or null. Without it (a snapshot, a listing), every key is a
 * path here, as in a recipe that names no host.
 */
export type DirContext = { home: string; cwd: string; host?: (name: string) => RecipeHost | null };

// --- reading ------------------------------------------------------------------------------------

export function decodeRecipe(bytes: Uint8Array, file: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new UserError(`${printable(file)}: not valid UTF-8 text`);
  }
}

export function parseRecipe(text: string, file: string, ctx: DirContext): ParsedRecipe {
  const doc = parseJson(text, file);
  if (!isPlainObject(doc)) {
    throw new UserError(`${printable(file)}: not a recipe: expected a JSON object, found ${kindOf(doc)}`);
  }
  if (Object.hasOwn(doc, "version")) checkVersion(doc.version, file, text);
  // The shape, not the version, tells the two apart: an object-valued `dirs` means wrapped.
  const wrapped = isPlainObject(doc.dirs);
  const dirs = wrapped ? (doc.dirs as Record<string, unknown>) : withoutVersion(doc);
  const parsed: ParsedRecipe = { name: wrapped ? storedName(doc.name) : null, entries: [], dropped: 0, problems: [] };
  const order: OrderedEntry[] = [];
  for (const [key, value] of Object.entries(dirs)) {
    const said = (index?: number) => entryPlace(file, wrapped, key, index);
    addDirectory(parsed, parsed.entries, resolveHostedKey(key, ctx), value, file, { at: `dirs[${JSON.stringify(key)}]`, said, order });
  }
  checkOrder(order, file);
  // Only the wrapped form has one: in a flat file `finished` is a directory like any other.
  if (wrapped && isPlainObject(doc.finished)) {
    const finished: RecipeEntry[] = (parsed.finished = []);
    for (const [key, value] of Object.entries(doc.finished)) {
      const said = (i?: number) => `${printable(file)}: finished[${printable(JSON.stringify(key))}]${i === undefined ? "" : `[${i}]`}`;
      addDirectory(parsed, finished, resolveDirKey(key, ctx), value, file, { at: `finished[${JSON.stringify(key)}]`, said });
    }
  }
  checkCommands(parsed, file);
  return parsed;
}

/**
 * Where a directory's entries are in the file (`dirs["~/app"]`), for refusals; `said`, the same with
 * the file and an entry's index, for the lines about dropped or doubtful entries (recipe-problems.ts);
 * and the start order they join (absent: `finished`, which never starts).
 */
type DirSource = { at: string; said: (index?: number) => string; order?: OrderedEntry[] };

function addDirectory(
  parsed: ParsedRecipe,
  into: HostedEntry[],
  where: string | { dir: string; host: RecipeHost },
  value: unknown,
  file: string,
  source: DirSource,
): void {
  const dir = typeof where === "string" ? where : where.dir;
  const host = typeof where === "string" ? undefined : where.host;
  // A non-array value contributes nothing; it counts as one dropped entry so the user hears about it.
  if (!Array.isArray(value)) {
    parsed.dropped++;
    parsed.problems.push(`${source.said()}: ${notAList(value)}`);
    return;
  }
  for (const [index, item] of value.entries()) {
    const { dropped, lines } = entryProblems(item);
    parsed.problems.push(...lines.map((line) => `${source.said(index)}: ${line}`));
    if (dropped || !storedEntry.allows(item)) {
      parsed.dropped++;
      continue;
    }
    const place = `${source.at}[${index}]`;
    const entry = toRecipeEntry(dir, item, file, place);
    into.push(host ? { ...entry, host } : entry);
    source.order?.push({ name: entry.name, after: entry.after, place });
  }
}

/**
 * A recipe holding a command fleetcom would refuse to start fails as a whole, before anything starts,
 * with the file and the directory named: dropping it would quietly lose part of the fleet.
 */
function checkCommands(parsed: ParsedRecipe, file: string): void {
  for (const entry of parsed.entries) {
    const problem = commandTooLong(entry.cmd);
    if (problem) throw new UserError(`${printable(file)}: ${problem} in ${printable(entry.dir)}`);
  }
}

function toRecipeEntry(dir: string, item: StoredEntry, file: string, place: string): RecipeEntry {
  if (typeof item === "string") return { dir, cmd: item, group: null, name: null };
  const entry: RecipeEntry = {
    dir,
    cmd: item.cmd,
    group: item.group === undefined ? null : normalizeGroup(item.group),
    name: item.name === undefined ? null : normalizeName(item.name),
    ...readServiceFields(item as Record<string, unknown>, file, place),
    ...restartFields(item, file, place),
    ...notifyField(item, file, place),
  };
  // Not in the schema: like any other extra member, a `history` or `typed` that is not a string is
  // ignored, and an `id` that is not a task id is too (the task then gets a fresh one).
  const { history, id, typed, worktree, baseline, checkpoints } = item as {
    history?: unknown;
    id?: unknown;
    typed?: unknown;
    worktree?: unknown;
    baseline?: unknown;
    checkpoints?: unknown;
  };
  if (typeof history === "string") entry.history = history;
  if (recordedId.allows(id)) entry.id = id;
  if (typeof typed === "string") entry.typed = typed;
  if (worktreeRecord.allows(worktree))
    entry.worktree = { repo: worktree.repo, branch: worktree.branch, path: worktree.path, ...(worktree.from !== undefined && { from: worktree.from }) };
  else if (worktree !== undefined) throw worktreeRefused(file, dir, entry.cmd);
  // A baseline that is not one is dropped: the task is still recovered, and takes a new one.
  if (baselineRecord.allows(baseline)) entry.baseline = { top: baseline.top, commit: baseline.commit, ref: baseline.ref };
  // Checkpoints are kept only when every one is one: the task is recovered either way.
  if (Array.isArray(checkpoints) && checkpoints.every((c) => checkpointRecord.allows(c))) entry.checkpoints = checkpoints.map((c) => ({ ...c }));
  return entry;
}

/**
 * A worktree record that could reach git as an option, or is not one at all, fails the whole recipe
 * before anything runs, naming the file and the entry: the task would otherwise start outside the
 * worktree it was saved in.
 */
function worktreeRefused(file: string, dir: string, cmd: string): UserError {
  const shown = cmd.length > 60 ? `${cmd.slice(0, 59)}…` : cmd;
  return new UserError(
    `${printable(file)}: the worktree of ${printable(JSON.stringify(shown))} in ${printable(dir)} is refused: it needs an absolute repo and path and a git branch name (not starting with '-')`,
  );
}

/**
 * An entry's restart policy: a field that is there but wrong fails the whole recipe, naming the file,
 * the entry and the field, before anything starts (a dropped policy would quietly leave a service down).
 */
function restartFields(item: Exclude<StoredEntry, string>, file: string, place: string): Pick<RecipeEntry, "restart" | "max_restarts" | "restarts"> {
  const { restart, max_restarts, restarts } = item as { restart?: unknown; max_restarts?: unknown; restarts?: unknown };
  const fields: Pick<RecipeEntry, "restart" | "max_restarts" | "restarts"> = {};
  if (restart !== undefined) {
    if (!restartPolicy.allows(restart))
      throw serviceRefusal(file, place, "restart", `expected "no", "on-failure" or "always", got ${short(JSON.stringify(restart))}`);
    fields.restart = restart;
  }
  if (max_restarts !== undefined) {
    if (!restartCount.allows(max_restarts))
      throw serviceRefusal(file, place, "max_restarts", `expected a whole number from 0 (no limit), got ${short(JSON.stringify(max_restarts))}`);
    fields.max_restarts = max_restarts;
  }
  // Written by snapshots only: a count that is not one is ignored, as an `id` is.
  if (restartCount.allows(restarts)) fields.restarts = restarts;
  return fields;
}

/** An entry's `"notify": false`; `true` is what no field means, and anything else fails the recipe as a bad policy does. */
function notifyField(item: Exclude<StoredEntry, string>, file: string, place: string): Pick<RecipeEntry, "notify"> {
  const { notify } = item as { notify?: unknown };
  if (notify === undefined || notify === true) return {};
  if (notify === false) return { notify: false };
  throw serviceRefusal(file, place, "notify", `expected false (or true), got ${short(JSON.stringify(notify))}`);
}

// `gpu1:/srv/train`, `gpu1:~` and `gpu1:~/x`: a directory on the added host gpu1 (its `~` is its home
// there). A prefix that is no added host, or a path after it that is neither absolute nor `~`, keeps
// the key a path here: `notes:/x` is `./notes:/x`.
const HOST_KEY = /^([^/~:][^/:]*):(\/.*|~|~\/.*)$/s;

function resolveHostedKey(key: string, ctx: DirContext): string | { dir: string; host: RecipeHost } {
  const match = ctx.host ? HOST_KEY.exec(key) : null;
  const host = match ? ctx.host!(match[1]!) : null;
  if (!match || !host) return resolveDirKey(key, ctx);
  return { dir: resolveDirKey(match[2]!, { home: host.home, cwd: "/" }), host };
}

// `~` and `~/…` mean $HOME; `~user` is not expanded (it would need the password database) and, like
// any other relative key, resolves against the loading client's directory.
export function resolveDirKey(key: string, ctx: DirContext): string {
  if (key === "~") return resolve(ctx.home);
  if (key.startsWith("~/")) return resolve(ctx.home, key.slice(2));
  return resolvePath(ctx.cwd, key);
}

function storedName(value: unknown): string | null {
  if (typeof value !== "string" || value.trim() === "") return null;
  return value.trim();
}

function withoutVersion(doc: Record<string, unknown>): Record<string, unknown> {
  const { version: _version, ...dirs } = doc;
  return dirs;
}

const supportedVersion = schema("supportedVersion", (type) => type(`1 <= number.integer <= ${NEWEST_VERSION}`));

function checkVersion(value: unknown, file: string, text: string): void {
  if (supportedVersion.allows(value)) return;
  throw new UserError(`${printable(file)}: unsupported recipe version ${printable(versionAsWritten(value, text))} (supported: 1..${NEWEST_VERSION})`);
}

// A number is quoted as the file writes it: JSON.parse turns 1e400 into Infinity (which JSON.stringify
// prints as null) and 99999999999999999999 into 100000000000000000000. Only an error pays for the
// second parse, whose reviver sees each value's source text.
function versionAsWritten(value: unknown, text: string): string {
  if (typeof value !== "number") return short(JSON.stringify(value) ?? String(value));
  return short(topLevelSource(text, "version") ?? String(value));
}

type SourceReviver = (this: object, key: string, value: unknown, context?: { source?: string }) => unknown;

// A reviver walks the whole document recursively: a deeply nested one that the plain parse took
// overflows the stack here, and then the value as parsed has to do.
function topLevelSource(text: string, key: string): string | undefined {
  const sources = new Map<object, string>();
  let root: unknown;
  try {
    root = (JSON.parse as (text: string, reviver: SourceReviver) => unknown)(text, function (name, value, context) {
      if (name === key && context?.source !== undefined) sources.set(this, context.source);
      return value;
    });
  } catch {
    return undefined;
  }
  return typeof root === "object" && root !== null ? sources.get(root) : undefined;
}

function short(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UserError(`${printable(file)}: invalid JSON${describeJsonError(text)}`);
  }
}

// --- writing ------------------------------------------------------------------------------------

function toStoredEntry(entry: RecipeEntry): StoredEntry {
  const service = serviceOf(entry);
  const plain =
    entry.history === undefined &&
    entry.id === undefined &&
    entry.typed === undefined &&
    entry.worktree === undefined &&
    entry.baseline === undefined &&
    entry.checkpoints === undefined &&
    entry.restart === undefined &&
    entry.max_restarts === undefined &&
    entry.restarts === undefined &&
    Object.keys(service).length === 0 &&
    entry.notify === undefined;
  if (entry.group === null && entry.name === null && plain) return entry.cmd;
  return {
    cmd: entry.cmd,
    ...(entry.group !== null && { group: entry.group }),
    ...(entry.name !== null && { name: entry.name }),
    ...(entry.id !== undefined && { id: entry.id }),
    ...(entry.typed !== undefined && { typed: entry.typed }),
    ...(entry.worktree !== undefined && { worktree: entry.worktree }),
    ...(entry.baseline !== undefined && { baseline: entry.baseline }),
    ...(entry.checkpoints !== undefined && { checkpoints: entry.checkpoints }),
    ...service,
    ...(entry.restart !== undefined && { restart: entry.restart }),
    ...(entry.max_restarts !== undefined && { max_restarts: entry.max_restarts }),
    ...(entry.restarts !== undefined && { restarts: entry.restarts }),
    ...(entry.notify === false && { notify: false }),
    ...(entry.history !== undefined && { history: entry.history }),
  } as StoredEntry;
}

/** The service fields an entry carries, in the order a file writes them; none present, none written. */
export function serviceOf(entry: ServiceFields): ServiceFields {
  const { ready, ready_timeout, after, stop_signal, stop_timeout, env, env_file } = entry;
  return {
    ...(ready !== undefined && { ready }),
    ...(ready_timeout !== undefined && { ready_timeout }),
    ...(after !== undefined && { after }),
    ...(stop_signal !== undefined && { stop_signal }),
    ...(stop_timeout !== undefined && { stop_timeout }),
    ...(env !== undefined && { env }),
    ...(env_file !== undefined && { env_file }),
  };
}

// Byte-stable: the same name and entries always give the same text. Directories are sorted by
// UTF-16 code unit (plain `sort()`, independent of locale); commands keep their order. `finished`
// (recovery snapshots only) is written apart, in the same shape, after `dirs`; a fleetcom that does
// not know the member ignores it, so it never starts them either.
export function formatRecipe(name: string, entries: HostedEntry[], home: string, finished: RecipeEntry[] = []): string {
  const head = `{\n  "version": ${NEWEST_VERSION},\n  "name": ${JSON.stringify(name.trim())},\n  "dirs": ${formatDirs(entries, home)}`;
  return finished.length === 0 ? `${head}\n}\n` : `${head},\n  "finished": ${formatDirs(finished, home)}\n}\n`;
}

function formatDirs(entries: HostedEntry[], home: string): string {
  const byDir = new Map<string, StoredEntry[]>();
  for (const entry of entries) {
    // A directory whose name is not UTF-8 (text-path.ts) is written as text, with U+FFFD for what is not.
    const key = entry.host ? `${entry.host.name}:${tildePath(entry.dir.toWellFormed(), entry.host.home)}` : tildePath(entry.dir.toWellFormed(), home);
    const list = byDir.get(key) ?? [];
    list.push(toStoredEntry(entry));
    byDir.set(key, list);
  }
  // Each directory is stringified on its own: one object would reorder integer-like keys first.
  const dirLines = [...byDir.keys()].sort().map((key) => `    ${JSON.stringify(key)}: ${JSON.stringify(byDir.get(key), null, 2).replaceAll("\n", "\n    ")}`);
  return dirLines.length === 0 ? "{}" : `{\n${dirLines.join(",\n")}\n  }`;
}
