// The hosts added with `fleetcom hosts add`, kept as `[hosts.NAME]` tables in config.toml (ssh: the
// destination as ssh resolves it; home: the remote home the binary lives under; share and timeout:
// whether fleetcom adds its ControlMaster options and its ConnectTimeout, the user's ssh config
// setting none when it was added). The rest of the
// file is left as the user wrote it: a host's table is replaced or removed as lines, and the file
// written atomically.
import { targetOf } from "./client-target.ts";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { writeFileAtomic } from "./atomic-write.ts";
import { DaemonClient } from "./client.ts";
import { hostTimeoutSetting } from "./client-host-bounds.ts";
import type { RemoteHost } from "./client-ssh.ts";
import { EXIT, UserError } from "./errors.ts";
import { FileRefused, readRegularFile } from "./files.ts";
import { configFile, readConfigFile } from "./settings.ts";
import { printable } from "./text-printable.ts";
import type { OpArgs, TaskInfo } from "./wire-protocol.ts";

/** A host's name: what `--host`, FLEETCOM_HOST and `HOST:TASK` say. */
const HOST_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

export function checkHostName(name: string): string {
  if (!HOST_NAME.test(name)) throw new UserError(`host name '${printable(name)}': use letters, digits, '-' and '_' (at most 32, no ':')`, EXIT.usage);
  return name;
}

/** The added hosts, in the file's order; a table that lacks `ssh` or `home` is left out. */
export function readHosts(file = configFile()): RemoteHost[] {
  const table = readConfigFile(file).values.get("hosts")?.value;
  if (typeof table !== "object" || table === null || Array.isArray(table)) return [];
  const hosts: RemoteHost[] = [];
  for (const [name, entry] of Object.entries(table as Record<string, unknown>)) {
    const { ssh, home, share, timeout } = (entry ?? {}) as { ssh?: unknown; home?: unknown; share?: unknown; timeout?: unknown };
    if (HOST_NAME.test(name) && typeof ssh === "string" && typeof home === "string")
      hosts.push({ name, ssh, home, ...(typeof share === "boolean" && { share }), ...(typeof timeout === "boolean" && { timeout }) });
  }
  return hosts;
}

/** The host called `name`; any other name is an error that lists the added ones. */
export function findHost(name: string, file = configFile()): RemoteHost {
  const hosts = readHosts(file);
  const found = hosts.find((h) => h.name === name);
  if (found) return found;
  const known = hosts.length ? `added: ${hosts.map((h) => h.name).join(", ")}` : "none added";
  throw new UserError(`no host '${printable(name)}' (${known}; fleetcom hosts add NAME)`, EXIT.usage);
}

/** Adds or replaces the host's table. */
export function saveHost(host: RemoteHost, file = configFile()): void {
  for (const value of [host.ssh, host.home]) if (/[\p{Cc}]/u.test(value)) throw new UserError(`'${printable(value)}' holds a control character`, EXIT.usage);
  const kept = withoutTable(configText(file), host.name).trimEnd();
  const share = host.share === undefined ? "" : `share = ${host.share}\n`;
  const timeout = host.timeout === undefined ? "" : `timeout = ${host.timeout}\n`;
  const table = `[hosts.${host.name}]\nssh = ${JSON.stringify(host.ssh)}\nhome = ${JSON.stringify(host.home)}\n${share}${timeout}`;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomic(file, `${kept ? `${kept}\n\n` : ""}${table}`);
}

/** Removes the host's table; false when there was none. */
export function removeHost(name: string, file = configFile()): boolean {
  const text = configText(file);
  const kept = withoutTable(text, name);
  if (kept === text) return false;
  writeFileAtomic(file, `${kept.trimEnd()}\n`);
  return true;
}

function configText(file: string): string {
  try {
    return readRegularFile(file, { maxBytes: 1024 * 1024 }).toString("utf8");
  } catch (error) {
    if (error instanceof FileRefused) throw new UserError(error.message);
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw error;
  }
}

/** The text without the lines of `[hosts.NAME]`: its header up to the next table's. */
function withoutTable(text: string, name: string): string {
  const header = new RegExp(`^\\s*\\[\\s*hosts\\s*\\.\\s*(?:${name}|"${name}"|'${name}')\\s*\\]\\s*(#.*)?$`);
  const lines = text.split("\n");
  const start = lines.findIndex((l) => header.test(l));
  if (start === -1) return text;
  let end = start + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end]!)) end++;
  return [...lines.slice(0, start), ...lines.slice(end)].join("\n");
}

/** How long `ls`, `hosts ls` wait for each host: 2.5 s, or FLEETCOM_HOST_TIMEOUT_MS (tests on a loaded machine). */
export function hostAnswerBoundMs(env: NodeJS.ProcessEnv = process.env): number {
  return hostTimeoutSetting(env) ?? 2_500;
}

/**
 * `work` on a connection to `host`'s daemon, bounded: a host that does not answer within `boundMs`
 * costs no more than that, and its failure is one line (ssh's own reason where it gave one).
 */
export async function askHost<T>(host: RemoteHost, work: (client: DaemonClient) => Promise<T>, boundMs: number): Promise<{ ok: T } | { error: string }> {
  let client: DaemonClient | null = null;
  let over = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<{ error: string }>((resolve) => {
    timer = setTimeout(() => resolve({ error: `${host.name} is unreachable: no answer within ${boundMs / 1000} s` }), boundMs);
  });
  const asked = (async () => {
    client = await DaemonClient.open(targetOf(host), { notices: false });
    if (over) client.destroy();
    return { ok: await work(client) };
  })().catch((error: unknown) => ({ error: error instanceof UserError ? error.message : String(error) }));
  const answer = await Promise.race([asked, bound]);
  over = true;
  clearTimeout(timer);
  // A host that did not answer has its ssh ended, so it keeps this process no longer.
  const open = client as DaemonClient | null;
  if ("ok" in answer) open?.close();
  else open?.destroy();
  return answer;
}

/** A task of some host's fleet: `host` is null for this machine's. */
export type HostedTask = TaskInfo & { host: string | null };

/**
 * This machine's fleet (`local`), then each added host's, every task with its host (`ls`); a host
 * that does not answer within its bound is named on stderr and the others are kept. Null when no
 * host is added.
 */
export function everyFleet(local: () => Promise<TaskInfo[]>, args: OpArgs<"ls"> = {}): Promise<HostedTask[] | null> {
  return fromEveryHost(local, (c) => c.request("ls", args));
}

/**
 * What `local` answers on this machine, then what `ask` answers on each added host, every row with
 * its host (null for this machine's): `ls`, `usage`. A host that does not answer within its bound is
 * named on stderr and the others are kept. Null when no host is added.
 */
export async function fromEveryHost<T extends object>(
  local: () => Promise<T[]>,
  ask: (client: DaemonClient) => Promise<T[]>,
): Promise<(T & { host: string | null })[] | null> {
  const hosts = readHosts();
  if (hosts.length === 0) return null;
  const remote = hosts.map((h) => askHost(h, ask, hostAnswerBoundMs()));
  const rows: (T & { host: string | null })[] = (await local()).map((t) => ({ ...t, host: null }));
  for (const [i, answer] of (await Promise.all(remote)).entries()) {
    if ("ok" in answer) rows.push(...answer.ok.map((t) => ({ ...t, host: hosts[i]!.name })));
    else process.stderr.write(`fleetcom: ${printable(answer.error)}\n`);
  }
  return rows;
}
