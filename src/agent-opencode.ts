// opencode: no flag chooses the ID, and its IDs are not UUIDs (`ses_` and 26 letters or digits,
// `isOpencodeId`). Resume: `opencode -s <id>`. Exit hint: `Continue  opencode -s ses_…`. Store: a
// SQLite database in `$XDG_DATA_HOME/opencode` (default `~/.local/share/opencode`), table `session`
// (`id`, `directory`, `time_created`, …); a row appears at the first prompt, not at start-up. Which
// database: `$OPENCODE_DB` (a path, absolute or in that folder; `:memory:` keeps none), else
// `opencode.db` for the latest and beta channels and `opencode-<channel>.db` for the others. The
// channel is built into the binary, so every one of them there is read.
// The database is the agent's own and live, and anything of the user's can rename files in its
// directory: SQLite opens by name, and an open of a FIFO put there waits for a writer, with the
// daemon's one thread in it. So SQLite never opens it: the database and its WAL are copied through
// files.ts (regular files of this user only, opened without blocking, bounded) into a directory of
// our own, and the copy is queried and removed. Nothing is written beside opencode's files (opening
// them, even read-only, would make `-wal` and `-shm` there). Bun reads the copy with bun:sqlite; Deno
// with node:sqlite where it has one, else it is no evidence (the task is saved as typed).
import { type Env, homeDir } from "./paths.ts";
import { isAbsolute, join } from "node:path";
import { createRequire } from "node:module";
import { entriesOf, member } from "./agent-files.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { nodeOs } from "./platform.ts";
import { copyRegularFile, FileRefused } from "./files.ts";
import { claudeEventsFile } from "./agent-claude.ts";
import { opencodeAttentionEnv, opencodeSignal } from "./agent-opencode-plugin.ts";
import { type Agent, commandHints, isOpencodeId } from "./agent.ts";

declare const Deno: unknown;

function dataDir(env: Env): string {
  return join(env.XDG_DATA_HOME || join(homeDir(env), ".local", "share"), "opencode");
}

/** The latest channel's database, where opencode keeps its sessions unless told otherwise. */
export function opencodeDatabase(env: Env): string {
  return join(dataDir(env), "opencode.db");
}

/** Every database opencode may keep this user's sessions in (see the top of this file). */
export function opencodeDatabases(env: Env): string[] {
  const chosen = env.OPENCODE_DB;
  if (chosen === ":memory:") return [];
  if (chosen) return [isAbsolute(chosen) ? chosen : join(dataDir(env), chosen)];
  const channels = entriesOf(dataDir(env))
    .filter((e) => /^opencode-[A-Za-z0-9._-]+\.db$/.test(e.name))
    .map((e) => join(dataDir(env), e.name));
  return [opencodeDatabase(env), ...channels];
}

/** The rows of one query over each of opencode's databases, together. */
function rowsOfAll(env: Env, sql: string, ...params: string[]): Row[] {
  return opencodeDatabases(env).flatMap((path) => sessionRows(path, sql, ...params));
}

type Row = Record<string, unknown>;

/** Bun's bun:sqlite or Deno's node:sqlite, opened read-only: a statement's rows, then closed. */
function openReadOnly(path: string): { rows(sql: string, ...params: string[]): Row[]; close(): void } {
  const require = createRequire(import.meta.url);
  if (typeof Deno === "undefined") {
    const { Database } = require("bun:sqlite");
    const db = new Database(path, { readonly: true });
    return { rows: (sql, ...params) => db.query(sql).all(...params), close: () => db.close() };
  }
  // A name the bundler does not try to resolve: Bun has no node:sqlite, and this branch is Deno's.
  const module = ["node", "sqlite"].join(":");
  const { DatabaseSync } = require(module);
  const db = new DatabaseSync(path, { readOnly: true });
  return { rows: (sql, ...params) => db.prepare(sql).all(...params), close: () => db.close() };
}

/** Past this, the database (or its WAL) is no evidence: copying it would hold the daemon too long. */
export const OPENCODE_DATABASE_MAX_BYTES = 256 * 1024 * 1024;

/**
 * The rows of one read-only query of a private copy; none when the database is missing, not a
 * regular file of this user, too large, of another shape, or unreadable here.
 */
export function sessionRows(path: string, sql: string, ...params: string[]): Row[] {
  const dir = mkdtempSync(join(nodeOs().tmpdir(), "fleetcom-opencode-"));
  let db: ReturnType<typeof openReadOnly> | null = null;
  try {
    const copy = join(dir, "opencode.db");
    const bounds = { noFollow: true, owner: process.getuid?.(), maxBytes: OPENCODE_DATABASE_MAX_BYTES };
    copyRegularFile(path, copy, bounds);
    // The WAL after the database: rows opencode wrote since its last checkpoint are only there.
    copyIfThere(`${path}-wal`, `${copy}-wal`, bounds);
    db = openReadOnly(copy);
    return db.rows(sql, ...params);
  } catch {
    return [];
  } finally {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Copies a file that may be missing (a database with no WAL); anything else that stops it stops the read. */
function copyIfThere(path: string, copy: string, bounds: Parameters<typeof copyRegularFile>[2]): void {
  try {
    copyRegularFile(path, copy, bounds);
  } catch (error) {
    if (error instanceof FileRefused || (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/** The one top-level session of the cwd created at or after the spawn and held by no other task, else null. */
export function newSessionOf(rows: readonly Row[], spawnedAt: Date, taken: ReadonlySet<string>): string | null {
  const ids = rows
    .filter((r) => member(r, "parent_id") == null && Number(member(r, "time_created")) >= spawnedAt.getTime())
    .map((r) => member(r, "id"))
    .filter((id): id is string => isOpencodeId(id) && !taken.has(id));
  const unique = [...new Set(ids)];
  return unique.length === 1 ? unique[0]! : null;
}

export const opencode: Agent = {
  name: "opencode",
  words: ["opencode"],
  selector: "-s",
  isId: isOpencodeId,
  envKeys: ["HOME", "XDG_DATA_HOME", "OPENCODE_DB"],

  launchFlags: () => [],

  // Attention comes through a plugin named for the run only (agent-opencode-plugin.ts).
  instrument: (launch, assets, env) => ({ args: [], env: opencodeAttentionEnv(assets, env), pinned: launch.id }),

  attentionFile: (assets) => claudeEventsFile(assets.captureFile),
  attentionSignal: opencodeSignal,

  captured: () => null,

  exitHint(lines) {
    const last = commandHints(lines, ["opencode"], ["-s"]).at(-1);
    return isOpencodeId(last) ? last : null;
  },

  // `opencode -s <id>` of an ID it has no row for says "Error: Session not found".
  holds: (id, { env }) => rowsOfAll(env, "SELECT id FROM session WHERE id = ?", id).length > 0,

  fromStore: ({ cwd, spawnedAt, env, taken }) => newSessionOf(rowsOfAll(env, "SELECT * FROM session WHERE directory = ?", cwd), spawnedAt, taken),
};
