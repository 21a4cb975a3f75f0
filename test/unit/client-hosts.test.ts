// The added hosts in config.toml (client-hosts.ts): a host's table is added, replaced and removed
// as lines, and the rest of the file stays as its user wrote it.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkHostName, findHost, readHosts, removeHost, saveHost } from "../../src/client-hosts.ts";

let dir: string;
let file: string;
// readConfigFile caches a file per process: each test writes its own.
let n = 0;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "fleetcom-hosts-"));
  file = join(dir, `config-${n++}.toml`);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("a host is added after the user's settings, which stay as written", () => {
  writeFileSync(file, '# mine\nscrollback = 500\n\n[hosts.old]\nssh = "me@old"\nhome = "/home/me"\n\n[other]\nx = 1\n');
  saveHost({ name: "gpu1", ssh: "me@gpu1.lan", home: "/home/me", share: true }, file);
  const text = readFileSync(file, "utf8");
  expect(text.startsWith("# mine\nscrollback = 500\n")).toBe(true);
  expect(text).toContain('[hosts.gpu1]\nssh = "me@gpu1.lan"\nhome = "/home/me"\nshare = true\n');
  expect(readHosts(file)).toEqual([
    { name: "old", ssh: "me@old", home: "/home/me" },
    { name: "gpu1", ssh: "me@gpu1.lan", home: "/home/me", share: true },
  ]);
});

test("whether fleetcom adds its ConnectTimeout is kept beside share, and read back", () => {
  saveHost({ name: "gpu1", ssh: "gpu1", home: "/home/me", share: true, timeout: false }, file);
  expect(readFileSync(file, "utf8")).toBe('[hosts.gpu1]\nssh = "gpu1"\nhome = "/home/me"\nshare = true\ntimeout = false\n');
  expect(findHost("gpu1", file)).toEqual({ name: "gpu1", ssh: "gpu1", home: "/home/me", share: true, timeout: false });
});

test("adding a host again replaces its table; rm removes only it", () => {
  writeFileSync(file, '[hosts.gpu1]\nssh = "a"\nhome = "/h"\n\n[hosts.b]\nssh = "b"\nhome = "/h"\n');
  saveHost({ name: "gpu1", ssh: "c", home: "/h2" }, file);
  expect(readFileSync(file, "utf8")).toBe('[hosts.b]\nssh = "b"\nhome = "/h"\n\n[hosts.gpu1]\nssh = "c"\nhome = "/h2"\n');
  expect(removeHost("gpu1", file)).toBe(true);
  expect(removeHost("gpu1", file)).toBe(false);
  expect(readFileSync(file, "utf8")).toBe('[hosts.b]\nssh = "b"\nhome = "/h"\n');
});

test("an unknown host is an error naming the added ones; a bad name is refused", () => {
  writeFileSync(file, '[hosts.gpu1]\nssh = "a"\nhome = "/h"\n');
  expect(findHost("gpu1", file)).toEqual({ name: "gpu1", ssh: "a", home: "/h" });
  expect(() => findHost("gpu2", file)).toThrow("no host 'gpu2' (added: gpu1; fleetcom hosts add NAME)");
  expect(() => checkHostName("a:b")).toThrow("host name 'a:b'");
  expect(() => checkHostName("x".repeat(33))).toThrow("at most 32");
});
