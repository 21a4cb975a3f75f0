// `fleetcom hosts add NAME [--ssh DEST] [--binary PATH]`, `hosts ls [--json]`, `hosts rm NAME`: the
// machines whose fleets this one reaches over OpenSSH (docs/remote.md). `add` looks at the host,
// installs this very version there when it is missing (this binary when the OS and architecture
// match, else the one given with --binary), under a versioned path in the remote home, packed on the
// wire and checked by SHA-256 and by its own --version before it is renamed into place
// (client-host-upload.ts): a failed upload, a wrong checksum or a binary that does not run leaves
// nothing in use.
import { defineCommand } from "./kit-define.ts";
import { askHost, checkHostName, hostAnswerBoundMs, readHosts, removeHost, saveHost } from "./client-hosts.ts";
import { type Probe, probeHost } from "./client-host-probe.ts";
import { installBinary } from "./client-host-upload.ts";
import { endSharedConnection, forgetForward, remoteBinary, type RemoteHost, sshFacts } from "./client-ssh.ts";
import { UserError, usageError } from "./errors.ts";
import { selfCommand } from "./platform.ts";
import { printable } from "./text-printable.ts";
import { mebibytes } from "./text-size.ts";
import { table, terminalColumns, writeStdout } from "./ui-format.ts";
import { VERSION } from "./version.ts";

const add = defineCommand({
  meta: { name: "add", description: "Add a host reached over ssh, installing this fleetcom version there if it is missing" },
  args: {
    name: { type: "positional", required: true, description: "The host's name here (gpu1:TASK, --host gpu1)" },
    ssh: { type: "string", valueHint: "DEST", description: "Where ssh connects (a Host of ~/.ssh/config, user@host); default: NAME" },
    binary: {
      type: "string",
      valueHint: "PATH",
      description: "The fleetcom to install when the host's OS or architecture differs from this one's (make dist)",
    },
  },
  async run({ args }) {
    const name = checkHostName(args.name);
    const dest = args.ssh ?? name;
    // ssh is given `--` before it, but a word like `-oProxyCommand=…` is an option, not a place to go.
    if (dest.startsWith("-")) throw usageError(`hosts add: --ssh ${printable(dest)}: a destination (user@host or a Host of ~/.ssh/config), not an ssh option`);
    // Asked once here, not at every command: `hosts add` again after changing ~/.ssh/config.
    const facts = await sshFacts(dest);
    const probe = await probeHost(name, dest, facts);
    const host: RemoteHost = { name, ssh: dest, home: probe.home, ...facts };
    const target = remoteBinary(probe.home);
    let installed = `fleetcom ${VERSION} already at ${target}`;
    if (probe.installed !== VERSION) {
      const source = binaryToInstall(name, probe.system, args.binary);
      const { packing, sent, reusedFrom } = await installBinary(host, source, probe.unpackers, probe.found);
      const reused = reusedFrom === null ? "" : `, the rest taken from ${reusedFrom} there`;
      installed = `installed fleetcom ${VERSION} at ${target} (SHA-256 verified there; ${sentOnTheWire(packing, sent)}${reused})`;
    }
    saveHost(host);
    // A forward made to the host as it was reached before is not used again.
    forgetForward(name);
    const others = probe.found.filter((f) => f !== target);
    console.log(`${name} (${printable(dest)}): ${printable(probe.system)}; ${printable(installed)}`);
    if (others.length) console.log(`  other versions there: ${others.map(printable).join(", ")}`);
    console.log(`  ${keptPastLogout(probe)}`);
  },
});

const ls = defineCommand({
  meta: { name: "ls", description: "List the added hosts: destination, version, reachable, tasks, waiting" },
  args: { json: { type: "boolean", description: "Print a JSON array, one object per host" } },
  async run({ args }) {
    const hosts = readHosts();
    const rows = await Promise.all(
      hosts.map(async (h) => {
        const answer = await askHost(h, async (c) => ({ tasks: await c.request("ls"), version: c.daemonVersion }), hostAnswerBoundMs());
        const tasks = "ok" in answer ? answer.ok.tasks : [];
        return {
          name: h.name,
          ssh: h.ssh,
          version: "ok" in answer ? answer.ok.version : null,
          reachable: "ok" in answer,
          tasks: tasks.length,
          waiting: tasks.filter((t) => t.attention !== null).length,
          ...("error" in answer && { error: answer.error }),
        };
      }),
    );
    if (args.json) return writeStdout(`${JSON.stringify(rows, null, 2)}\n`);
    if (rows.length === 0) return writeStdout("no hosts (fleetcom hosts add NAME [--ssh DEST])\n");
    const cells = rows.map((r) => [
      r.name,
      printable(r.ssh),
      r.version ?? "",
      r.reachable ? "yes" : `no: ${printable(r.error ?? "")}`,
      String(r.tasks),
      String(r.waiting),
    ]);
    writeStdout(table(["HOST", "SSH", "VERSION", "REACHABLE", "TASKS", "WAITING"], cells, terminalColumns(), [3]));
  },
});

const rm = defineCommand({
  meta: { name: "rm", description: "Forget a host (its fleet there runs on)" },
  args: { name: { type: "positional", required: true, description: "The host's name" } },
  async run({ args }) {
    const host = readHosts().find((h) => h.name === checkHostName(args.name));
    if (!host || !removeHost(host.name)) throw new UserError(`no host '${printable(args.name)}'`);
    forgetForward(host.name);
    await endSharedConnection(host);
    console.log(`removed host '${args.name}' (its fleet there runs on; fleetcom is still installed there)`);
  },
});

export default defineCommand({
  meta: { name: "hosts", description: "The hosts whose fleets this one reaches over ssh: add, ls, rm" },
  args: { json: { type: "boolean", description: "Print JSON" } },
  default: "ls",
  subCommands: { add: async () => add, ls: async () => ls, rm: async () => rm },
});

/** `uname -sm` of this machine, from what the runtime says. */
export function localSystem(os: string = process.platform, arch: string = process.arch): string {
  const kernel = ({ linux: "Linux", darwin: "Darwin", freebsd: "FreeBSD" } as Record<string, string>)[os] ?? os;
  const machine = arch === "x64" ? "x86_64" : arch === "arm64" ? (os === "linux" ? "aarch64" : "arm64") : arch;
  return `${kernel} ${machine}`;
}

/** The file to install: --binary, else this compiled binary when the host is the same OS and architecture. */
function binaryToInstall(name: string, remote: string, given: string | undefined): string {
  if (given !== undefined) return given;
  const here = localSystem();
  if (remote !== here)
    throw new UserError(`${name} is ${printable(remote)} and this fleetcom is ${here}: give one built for ${printable(remote)} with --binary PATH (make dist)`);
  const self = selfCommand();
  if (self.length !== 1)
    throw new UserError(`this fleetcom runs from source (${printable(self.join(" "))}): give the binary to install with --binary PATH (make build)`);
  return self[0]!;
}

/** What crossed the wire, in the units a person reads it in. */
function sentOnTheWire(packing: string, bytes: number): string {
  const size = mebibytes(bytes);
  return packing === "none" ? `${size} sent as it is` : `${size} sent ${packing}-packed`;
}

/** Whether the fleet there outlives the user's logout, in one line. */
function keptPastLogout(probe: Probe): string {
  if (probe.service) return "the fleetcom user service is enabled there: the fleet outlives logouts";
  if (probe.linger === "yes") return "lingering is on there: the fleet outlives logouts";
  if (probe.linger === "no")
    return "lingering is off there: if logind ends a user's processes at logout, a logout there ends the fleet (loginctl enable-linger keeps it)";
  return "no systemd-logind there: the fleet runs in its own session, which a logout leaves alone";
}
