// What the per-agent unit tests share: a temporary directory, files in it, and run assets there.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { RunAssets } from "../../src/agent.ts";

export const ID = "c8c4a5cc-0b32-4ba0-a6b4-6ed08c218e0d";
export const ID2 = "d9d5b6dd-1c43-4cb1-b7c5-7fe19d329f1e";
export const HOSTILE = ["$(touch /tmp/pwned)", "'; rm -rf ~; '", ID.toUpperCase(), ID.slice(0, 35), `${ID} && id`, `${ID}x`];

export function tempDir(): {
  root: string;
  file(path: string, content?: string, ageMs?: number): string;
  dir(path: string, ageMs?: number): string;
  cleanup(): void;
} {
  const root = mkdtempSync(join(tmpdir(), "fleetcom-agent-"));
  const age = (path: string, ageMs: number) => {
    const t = (Date.now() - ageMs) / 1000;
    utimesSync(path, t, t);
  };
  return {
    root,
    file(path, content = "", ageMs = 0) {
      const full = join(root, path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, content);
      if (ageMs) age(full, ageMs);
      return full;
    },
    dir(path, ageMs = 0) {
      const full = join(root, path);
      mkdirSync(full, { recursive: true });
      if (ageMs) age(full, ageMs);
      return full;
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export function assetsIn(root: string): RunAssets {
  return {
    dir: root,
    captureFile: join(root, "task-1-1.json"),
    scratchBase: join(root, "cc-1-1"),
    asset(name, content, mode) {
      writeFileSync(join(root, name), content);
      chmodSync(join(root, name), mode);
      return join(root, name);
    },
    privateDir(path) {
      mkdirSync(path, { mode: 0o700 });
      return path;
    },
  };
}
