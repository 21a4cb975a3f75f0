// The release path end to end: `make dist` builds every target, a loopback HTTP server serves the
// result like a release page, install.sh installs from it with `sh`, and the installed binary works
// from a directory with no node_modules and no bun on PATH. A corrupt or missing download installs
// nothing and says why. install.sh must also be shellcheck-clean.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { makeSandbox, type Sandbox } from "../harness/helpers.ts";
import { until } from "../harness/fleet.ts";
import { VERSION } from "../../src/version.ts";

const REPO = resolve(import.meta.dir, "../..");
const HOST_ASSET = `fleetcom-${process.platform}-${process.arch}`;
const NO_BUN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const SLOW = 300_000;

let sb: Sandbox;
let dist: string;
let server: ReturnType<typeof Bun.serve>;
let base: string;

beforeAll(() => {
  sb = makeSandbox();
  dist = join(sb.root, "dist");
  mkdirSync(dist);
  const make = Bun.spawnSync(["make", "-C", REPO, "dist", `DIST_DIR=${dist}`], { stdout: "pipe", stderr: "pipe" });
  if (make.exitCode !== 0) throw new Error(`make dist failed: ${make.stderr.toString()}`);
  // Serves any directory under the sandbox: /<dir>/<file>, so one server holds good and bad releases.
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const file = join(sb.root, decodeURIComponent(new URL(request.url).pathname));
      if (!file.startsWith(sb.root) || !existsSync(file)) return new Response("not found", { status: 404 });
      return new Response(Bun.file(file));
    },
  });
  base = `http://127.0.0.1:${server.port}`;
  // A hang guard: four compiles, which took over five minutes on a 2-core machine at load ~20.
}, 2 * SLOW);

afterAll(() => {
  server?.stop(true);
  sb?.cleanup();
});

// Never spawnSync here: the HTTP server answering the installer runs on this same event loop.
async function install(from: string, into: string): Promise<{ code: number; stderr: string }> {
  const proc = Bun.spawn(["sh", join(REPO, "install.sh")], {
    env: { HOME: sb.home, PATH: NO_BUN_PATH, FLEETCOM_INSTALL_BASE: from, FLEETCOM_INSTALL_DIR: into },
    stdout: "ignore",
    stderr: "pipe",
  });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  return { code, stderr };
}

function fleetcom(binary: string, args: string[]): { code: number; stdout: string; stderr: string } {
  const r = Bun.spawnSync([binary, ...args], { env: { ...sb.env, PATH: NO_BUN_PATH }, cwd: sb.home, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

/** A copy of the release with the host binary changed by one byte, its SHA256SUMS left as it was. */
function corruptRelease(name: string): string {
  const dir = join(sb.root, name);
  cpSync(dist, dir, { recursive: true });
  const binary = join(dir, HOST_ASSET);
  writeFileSync(binary, Buffer.concat([readFileSync(binary), Buffer.from([0])]));
  return dir;
}

describe("make dist and install.sh", () => {
  test("make dist builds every target with a checksum each", () => {
    const sums = readFileSync(join(dist, "SHA256SUMS"), "utf8");
    for (const target of ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"]) {
      expect(existsSync(join(dist, `fleetcom-${target}`))).toBe(true);
      expect(sums).toMatch(new RegExp(`^[0-9a-f]{64}  fleetcom-${target}$`, "m"));
    }
    expect(sums).toMatch(/^[0-9a-f]{64} {2}install\.sh$/m);
  });

  test(
    "installs over loopback HTTP, and the binary runs --version, sessions and a daemon round trip without bun or node_modules",
    async () => {
      const bin = join(sb.root, "fresh", "bin");
      const result = await install(`${base}/dist`, bin);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(`installed fleetcom ${VERSION} to ${bin}/fleetcom`);
      expect(result.stderr).toContain(`export PATH="${bin}:$PATH"`);
      expect(readdirSync(bin)).toEqual(["fleetcom"]);
      expect(Bun.which("bun", { PATH: NO_BUN_PATH })).toBeNull();
      expect(existsSync(join(sb.root, "node_modules"))).toBe(false);

      const binary = join(bin, "fleetcom");
      expect(fleetcom(binary, ["--version"]).stdout).toBe(`${VERSION}\n`);
      expect(fleetcom(binary, ["sessions"]).stdout).toContain("no saved sessions");
      try {
        const run = fleetcom(binary, ["run", "--", "echo round trip"]);
        expect(run).toMatchObject({ code: 0, stdout: "1\n" });
        const task = await until("the task to exit", () => {
          const [t] = JSON.parse(fleetcom(binary, ["ls", "--json"]).stdout);
          return t?.state === "exited" ? t : undefined;
        });
        expect(task.exitCode).toBe(0);
        expect(fleetcom(binary, ["peek", "1"]).stdout).toContain("round trip");
      } finally {
        expect(fleetcom(binary, ["--kill"]).code).toBe(0);
      }
    },
    SLOW,
  );

  test(
    "installs from a file:// base too",
    async () => {
      const bin = join(sb.root, "from-file");
      expect((await install(`file://${dist}`, bin)).code).toBe(0);
      expect(fleetcom(join(bin, "fleetcom"), ["--version"]).stdout).toBe(`${VERSION}\n`);
    },
    SLOW,
  );

  test(
    "a corrupted binary fails the checksum, installs nothing and keeps the fleetcom already there",
    async () => {
      corruptRelease("corrupt");
      const fresh = join(sb.root, "corrupt-fresh", "bin");
      const failed = await install(`${base}/corrupt`, fresh);
      expect(failed.code).not.toBe(0);
      expect(failed.stderr).toContain(`checksum mismatch for ${HOST_ASSET}`);
      expect(failed.stderr).toContain("nothing was installed");
      expect(existsSync(join(sb.root, "corrupt-fresh"))).toBe(false);

      const existing = join(sb.root, "existing");
      mkdirSync(existing);
      writeFileSync(join(existing, "fleetcom"), "previous version");
      expect((await install(`${base}/corrupt`, existing)).code).not.toBe(0);
      expect(readdirSync(existing)).toEqual(["fleetcom"]);
      expect(readFileSync(join(existing, "fleetcom"), "utf8")).toBe("previous version");
    },
    SLOW,
  );

  test("a failed download installs nothing and names the URL", async () => {
    const bin = join(sb.root, "missing", "bin");
    const failed = await install(`${base}/no-such-release`, bin);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain(`download of ${base}/no-such-release/SHA256SUMS failed`);
    expect(existsSync(join(sb.root, "missing"))).toBe(false);
  });

  test(
    "install.sh is shellcheck-clean",
    () => {
      ensureShellcheck();
      const r = Bun.spawnSync(["shellcheck", "--shell=sh", join(REPO, "install.sh")], { stdout: "pipe", stderr: "pipe" });
      expect(r.stdout.toString() + r.stderr.toString()).toBe("");
      expect(r.exitCode).toBe(0);
    },
    SLOW,
  );
});

function ensureShellcheck(): void {
  if (Bun.which("shellcheck")) return;
  if (process.getuid?.() !== 0) throw new Error("shellcheck is missing and only root can apt-get install it");
  for (const argv of [
    ["apt-get", "update", "-qq"],
    ["apt-get", "install", "-y", "-qq", "shellcheck"],
  ]) {
    const r = Bun.spawnSync(argv, { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }, stdout: "ignore", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} failed: ${r.stderr.toString()}`);
  }
}
