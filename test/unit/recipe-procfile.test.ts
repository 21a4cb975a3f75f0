import { expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isProcfileName, parseDotenv, parseProcfile, readEnvFile } from "../../src/recipe-procfile.ts";
import { thrown } from "../harness/helpers.ts";

test("each name: command line is a process; comments and blank lines are skipped", () => {
  expect(parseProcfile("# shop\nweb: bundle exec puma -p $PORT\n\n  worker:   sidekiq  \n", "Procfile")).toEqual([
    { name: "web", command: "bundle exec puma -p $PORT" },
    { name: "worker", command: "sidekiq" },
  ]);
});

test("a malformed line, an empty command or a name twice fails naming the line, exit 2", () => {
  expect(thrown(() => parseProcfile("web: a\nworker sidekiq\n", "/x/Procfile"))).toMatchObject({
    message: '/x/Procfile:2: expected "name: command", got "worker sidekiq"',
    exitCode: 2,
  });
  expect(thrown(() => parseProcfile("web:\n", "P")).message).toBe('P:1: expected "name: command", got "web:"');
  expect(thrown(() => parseProcfile("web: a\nweb: b\n", "P")).message).toBe("P:2: a second process named web");
});

test("Procfile and Procfile.* are Procfiles; procfile.txt is not", () => {
  expect([isProcfileName("Procfile"), isProcfileName("Procfile.dev"), isProcfileName("procfile.txt")]).toEqual([true, true, false]);
});

test(".env as foreman and honcho read it: export, quotes, escapes, comments", () => {
  const text = 'export PORT=5000\nA=\'lit $x \\n\'\nB="two\\nlines \\"q\\"" # note\nC=plain # note\n# D=no\nnot a line\n';
  expect(parseDotenv(text)).toEqual({ PORT: "5000", A: "lit $x \\n", B: 'two\nlines "q"', C: "plain" });
});

test("a .env that is a FIFO is refused at once and logged, never waited on", () => {
  const dir = mkdtempSync(join(tmpdir(), "fleetcom-env-"));
  try {
    const fifo = join(dir, ".env");
    execFileSync("mkfifo", [fifo]);
    const logged: string[] = [];
    expect(readEnvFile(fifo, (m) => logged.push(m))).toEqual({});
    expect(logged).toHaveLength(1);
    expect(logged[0]).toStartWith(`${fifo} not read: `);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
