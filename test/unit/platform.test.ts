// The children platform.ts starts for the daemon (its task watcher, its git) through Bun's spawn.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { acceptsOnLoopback, runBounded, runGathered, runInGroup, spawnFed, startInGroup } from "../../src/platform.ts";
import { listProcStats, readProcStat } from "../../src/proc.ts";
import { until } from "../harness/fleet.ts";

describe("a program run for its output", () => {
  test("its output as bytes, its stderr trimmed, its status; input reaches its stdin", async () => {
    const r = await runGathered(["/bin/sh", "-c", "tr a-z A-Z; printf ' oops \\n' >&2; exit 3"], { PATH: "/usr/bin:/bin" }, "héllo\n");
    expect(r).toEqual({ code: 3, out: Buffer.from("HéLLO\n"), err: "oops" });
  });

  test("without input its stdin is empty, and it sees only the environment given", async () => {
    const r = await runGathered(["/bin/sh", "-c", 'cat; printf "%s" "$ONLY:$HOME"'], { ONLY: "this" });
    expect(r.out.toString()).toBe("this:");
  });

  test("one ended by a signal answers 1; one that cannot start answers 127 and why, without throwing", async () => {
    expect((await runGathered(["/bin/sh", "-c", "kill -TERM $$"], {})).code).toBe(1);
    const missing = await runGathered(["/no/such/program"], {});
    expect(missing.code).toBe(127);
    expect(missing.err).not.toBe("");
  });
});

describe("a helper run to its end within a bound", () => {
  test("its status, its stdout and stderr trimmed, the environment given and nothing on its stdin", () => {
    const r = runBounded("/bin/sh", ["-c", 'cat; printf " yes %s \\n" "$ONLY"; printf " why \\n" >&2; exit 4'], { ONLY: "this" }, 5_000);
    expect(r).toEqual({ code: 4, stdout: "yes this", stderr: "why" });
  });

  test("one that outlives the bound, or ends by a signal, has no status; one that cannot start neither, without throwing", () => {
    // Killed at the bound: a sleep let run would end with 0 (after the test's own timeout).
    expect(runBounded("/bin/sleep", ["30"], {}, 200).code).toBeNull();
    expect(runBounded("/bin/sh", ["-c", "kill -TERM $$"], {}, 5_000).code).toBeNull();
    expect(runBounded("/no/such/program", [], {}, 5_000).code).toBeNull();
  });
});

describe("a program started in a group of its own (a readiness command, the notifier)", () => {
  test("its status, in its directory, with the environment given, leading its own process group", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fleetcom-group-"));
    try {
      const script = 'test "$(pwd)" = "$1" && ps -o pgid= -p $$ > "$1/pgid"; printf "%s" "$ONLY" > "$1/env"; exit 5';
      const child = startInGroup(["/bin/sh", "-c", script, "sh", dir], { cwd: dir, env: { ONLY: "this", PATH: "/usr/bin:/bin" } });
      expect(await child.ended).toEqual({ code: 5, stderr: "" });
      expect(Number(readFileSync(join(dir, "pgid"), "utf8"))).toBe(child.group!);
      expect(readFileSync(join(dir, "env"), "utf8")).toBe("this");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the first bytes of its stderr, as many as asked for; none asked for, none kept", async () => {
    const loud = ["/bin/sh", "-c", "printf 'broken %s' $(seq 1 500) >&2; exit 3"];
    const kept = await startInGroup(loud, { stderrBytes: 20 }).ended;
    expect(kept).toEqual({ code: 3, stderr: "broken 1broken 2brok" });
    expect(await startInGroup(loud, {}).ended).toEqual({ code: 3, stderr: "" });
  });

  test("killed by a signal it says which; one that cannot start says why, and nothing is thrown", async () => {
    expect(await startInGroup(["/bin/sh", "-c", "kill -KILL $$"], {}).ended).toEqual({ signal: "SIGKILL", stderr: "" });
    const nowhere = await startInGroup(["/bin/true"], { cwd: "/no/such/directory" }).ended;
    expect(nowhere).toEqual({ notStarted: expect.any(String) });
  });
});

describe("a connect to a port on 127.0.0.1", () => {
  test("a listener accepts it, and the connection is closed at once; a port nobody listens on does not", async () => {
    let closed!: () => void;
    const ended = new Promise<void>((resolve) => (closed = resolve));
    const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {}, close: () => closed() } });
    try {
      expect(await acceptsOnLoopback(server.port, 5_000)).toBe(true);
      await ended; // the probe left no connection open
    } finally {
      server.stop(true);
    }
    expect(await acceptsOnLoopback(server.port, 5_000)).toBe(false);
  });
});

describe("a program run in a group of its own", () => {
  test("its stdout and stderr together, in its directory, with the environment given", async () => {
    const run = runInGroup(["/bin/sh", "-c", 'echo "out $ONLY"; echo err >&2; pwd'], "/tmp", { ONLY: "this" }, 1024);
    // Read from two pipes at once: which of two lines written together comes first is the scheduler's.
    expect((await run.output)!.split("\n").sort()).toEqual(["", "/tmp", "err", "out this"]);
  });

  test("leads its process group, which one kill ends, children and all", async () => {
    const run = runInGroup(["/bin/sh", "-c", "sleep 300 & wait"], "/", {}, 1024);
    expect(run.group).toBeNumber();
    await until("the group to have its sleep", () => (listProcStats() ?? []).some((p) => p.pgrp === run.group && p.pid !== run.group));
    process.kill(-run.group!, "SIGKILL");
    expect(await run.output).toBe("");
    await until("the group to be gone", () => !(listProcStats() ?? []).some((p) => p.pgrp === run.group && p.state !== "Z"));
  });

  test("keeps at most its bound of output, and one that cannot start gives null", async () => {
    const run = runInGroup(["/bin/sh", "-c", "head -c 300000 /dev/zero | tr '\\0' x"], "/", { PATH: "/usr/bin:/bin" }, 1000);
    const kept = (await run.output)!;
    // Exactly the bound, however the pipe's reads fell: once a single read brought all 300,000 bytes.
    expect(kept).toBe("x".repeat(1000));
    const missing = runInGroup(["/no/such/program"], "/", {}, 1000);
    expect(missing.group).toBeUndefined();
    expect(await missing.output).toBeNull();
  });
});

describe("a child fed on its stdin", () => {
  const dir = mkdtempSync(join(tmpdir(), "fleetcom-fed-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("reads each write as it comes and says how it ended; a write after its end is dropped", async () => {
    const out = join(dir, "read");
    const child = spawnFed(["/bin/sh", "-c", 'while read -r line; do [ "$line" = end ] && exit 7; echo "$line" >> "$OUT"; done'], { OUT: out });
    child.write("one\n");
    child.write("two\nend\n");
    expect(await child.ended).toEqual({ status: 7 });
    child.write("after the end\n");
    expect(readFileSync(out, "utf8")).toBe("one\ntwo\n");
  });

  test("leads a session of its own", async () => {
    const out = join(dir, "session");
    const child = spawnFed(["/bin/sh", "-c", 'read -r s < /proc/$$/stat; set -- ${s##*) }; echo "$$ $4" > "$OUT"; read -r line'], { OUT: out });
    await until("it to say its session", () => existsSync(out) && readFileSync(out, "utf8").endsWith("\n"));
    const [pid, session] = readFileSync(out, "utf8").trim().split(" ").map(Number);
    expect(session).toBe(pid!);
    expect(session).not.toBe(readProcStat(process.pid)!.session);
    child.write("done\n");
    expect(await child.ended).toEqual({ status: 0 });
  });

  test("a program that cannot start is said, and writes to it are dropped", async () => {
    const child = spawnFed(["/no/such/program"], {});
    child.write("nobody reads this\n");
    expect(await child.ended).toMatchObject({ notRun: expect.any(String) });
  });
});
