// Regenerates docs/dashboard.txt (and its copy in README.md): the dashboard as a user sees it, with a realistic fleet (two AI
// agents, a server, a test watcher, a build that passed and a lint that failed), captured from the
// real program in a real PTY through a headless terminal. Run with `make docs`.
// The agents are stand-in scripts named `claude` and `codex` on PATH, so no account is needed.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Fleet, until } from "../test/harness/fleet.ts";

const OUT = join(import.meta.dir, "../docs/dashboard.txt");
const README = join(import.meta.dir, "../README.md");
const README_BLOCK = /(<!-- docs\/dashboard\.txt -->\n```text\n)[\s\S]*?(```\n<!-- \/docs\/dashboard\.txt -->)/;
const SIZE = { cols: 110, rows: 18 };

const AGENTS: Record<string, string> = {
  claude: `echo '╭─ Claude Code ───────────────────────────╮'
echo '> make the session picker sort names ignoring case'
echo '● Update(src/session-picker.ts)'
echo '  ⎿  Updated with 3 additions'
while :; do printf '\\r✻ Thinking… (%ds · esc to interrupt)' "$SECONDS"; sleep 1; done`,
  codex: `echo '>_ OpenAI Codex'
echo '• Ran bun test test/picker.test.ts'
echo '  └ 12 pass, 0 fail'
printf '› Add a test for Ctrl-D on a damaged session '
read -r _`,
};

const fleet = new Fleet();
try {
  const bin = join(fleet.sandbox.root, "bin");
  mkdirSync(bin);
  for (const [name, body] of Object.entries(AGENTS)) {
    writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  fleet.env.PATH = `${bin}:${fleet.env.PATH}`;
  const api = join(fleet.sandbox.home, "src/api");
  const web = join(fleet.sandbox.home, "src/web");
  mkdirSync(api, { recursive: true });
  mkdirSync(web, { recursive: true });
  const inApi = { cwd: api };
  await fleet.ok(["run", "--group", "agents", "--", "codex"], inApi);
  const claude = Number((await fleet.ok(["run", "--group", "agents", "--", "claude"], inApi)).trim());
  await fleet.ok(
    [
      "run",
      "--group",
      "api",
      "--name",
      "api server",
      "--",
      `echo 'listening on http://localhost:8080'; i=0; while :; do i=$((i+1)); echo "GET /items/$i 200 $((i % 40 + 3))ms"; sleep 1; done`,
    ],
    inApi,
  );
  await fleet.ok(
    [
      "run",
      "--group",
      "api",
      "--name",
      "cargo watch -x test",
      "--",
      "cargo watch -x test 2>/dev/null || { echo 'test result: ok. 128 passed; 0 failed'; echo '[Finished running. Exit status: 0]'; sleep 86400; }",
    ],
    inApi,
  );
  await fleet.ok(["run", "--group", "web", "--name", "npm run build", "--", "echo 'dist/app.js  41.2 kB │ gzip: 13.1 kB'; echo '✓ built in 1.84s'"], {
    cwd: web,
  });
  await fleet.ok(
    [
      "run",
      "--group",
      "web",
      "--name",
      "npm run lint",
      "--",
      "echo 'src/App.tsx:12:7  error  no-unused-vars'; echo '✖ 1 problem (1 error, 0 warnings)'; exit 1",
    ],
    { cwd: web },
  );
  await fleet.ok(["tag", String(claude)]);
  // Let the quiet tasks turn idle (10 s without output), as they would in a real fleet.
  await until("the watcher and codex idle", async () => (await fleet.ls()).filter((t) => t.idle).length >= 2, 30_000);
  const client = fleet.spawnClient([], SIZE);
  const screen = await client.waitForScreen("the dashboard", (s) => s.includes("api server") && s.includes("Completed"));
  writeFileSync(OUT, `${screen}\n`);
  writeFileSync(
    README,
    readFileSync(README, "utf8").replace(README_BLOCK, (_, open, close) => `${open}${screen}\n${close}`),
  );
  console.log(screen);
  client.write("q");
  await client.proc.exited;
} finally {
  await fleet.stop();
}
