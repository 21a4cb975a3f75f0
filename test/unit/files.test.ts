// Whether fleetcom's stdout may be a terminal (files.ts mayBeTerminal): asked before process.stdout
// is built, which costs ~50 ms when stdout is /dev/null, the usual place of a script's output.
import { describe, expect, test } from "bun:test";
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mayBeTerminal } from "../../src/files.ts";
import { tempDir } from "../harness/agent-test-helpers.ts";

const FILES = join(import.meta.dir, "../../src/files.ts");

describe("an fd that may be a terminal", () => {
  test("/dev/null, a regular file and a pipe are not; a closed fd is not", () => {
    const tmp = tempDir();
    const file = join(tmp.root, "out");
    writeFileSync(file, "");
    const fds = [openSync("/dev/null", "w"), openSync(file, "w")];
    try {
      for (const fd of fds) expect(mayBeTerminal(fd)).toBe(false);
      const pipe = Bun.spawnSync([process.execPath, "-e", `import { mayBeTerminal } from ${JSON.stringify(FILES)}; console.log(String(mayBeTerminal(1)))`]);
      expect(pipe.stdout.toString().trim()).toBe("false");
      expect(mayBeTerminal(fds[0]! + 1000)).toBe(false);
    } finally {
      for (const fd of fds) closeSync(fd);
      tmp.cleanup();
    }
  });

  test("a PTY is", async () => {
    let seen = "";
    const child = Bun.spawn([process.execPath, "-e", `import { mayBeTerminal } from ${JSON.stringify(FILES)}; console.log(String(mayBeTerminal(1)))`], {
      terminal: { cols: 80, rows: 24, data: (_t, chunk) => void (seen += new TextDecoder().decode(chunk)) },
    });
    await child.exited;
    expect(seen.trim()).toBe("true");
  });
});
