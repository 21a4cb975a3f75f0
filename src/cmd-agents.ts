// `fleetcom agents [--json]`: every agent fleetcom knows (built-in, and declared in config.toml),
// the version found on PATH, what fleetcom pins, captures and injects for it, and whether its resume
// was verified with that version. Asks no daemon: the versions and options come from each binary
// (`--version`, `--help`), asked once per build and kept in the probe's cache (agent-probe.ts).
import { defineCommand } from "./cli-define.ts";

export default defineCommand({
  meta: { name: "agents", description: "List the agents fleetcom knows: version on PATH, what is pinned, captured and injected, resume verified" },
  args: {
    json: { type: "boolean", description: "Print an array of {name, kind, words, path, version, resumeVerified, …} as JSON" },
  },
  async run({ args }) {
    const [
      { loadSettings },
      { checkedAgents },
      { catalog, resumeStatus },
      { FlagProbe, resolveExecutable },
      { cacheDir },
      { join },
      { printable },
      { writeStdout },
    ] = await Promise.all([
      import("./settings.ts"),
      import("./config-agents.ts"),
      import("./agent-catalog.ts"),
      import("./agent-probe.ts"),
      import("./paths.ts"),
      import("node:path"),
      import("./text-printable.ts"),
      import("./ui-format.ts"),
    ]);
    const { agents: declared, problems } = checkedAgents(loadSettings().agents);
    for (const problem of problems) process.stderr.write(`fleetcom: warning: ${printable(problem)}\n`);
    // A person waits on this: each binary's first --help and --version get a few seconds, not a spawn's budget.
    const probe = new FlagProbe({ cacheFile: join(cacheDir(), "agent-flags.json"), budgetMs: 10_000, log: () => {} });
    const [env, cwd] = [process.env, process.cwd()];
    const rows = await Promise.all(
      catalog(declared).map(async ({ agent, kind, facts, unused }) => {
        const word = agent.words[0]!;
        const version = await probe.versionOf(word, env, cwd);
        const needed = agent.launchFlags({ agent, program: word, id: null });
        const listed = probe.flagsOf(word, env, cwd);
        const missing = listed === null ? [] : needed.filter((flag) => !listed.has(flag));
        const runsAsTyped = missing.length > 0 ? `its --help lists no ${missing.join(", ")}` : null;
        const resume = resumeStatus(facts, kind, version);
        return {
          name: agent.name,
          kind,
          words: agent.words,
          path: resolveExecutable(word, env, cwd),
          version: version ?? null,
          resumeVerified: resume.verified,
          resume: resume.said,
          ...facts,
          runsAsTyped,
          unused,
        };
      }),
    );
    probe.dispose();
    if (args.json) return writeStdout(`${JSON.stringify(rows, null, 2)}\n`);
    const lines = rows.flatMap((r) => {
      const found = r.path === null ? "not on PATH" : `${r.version ?? "version unknown"} at ${r.path}`;
      const head = `${r.name}  ${r.kind}  ${found}  ${r.path === null ? "" : r.resume}`.trimEnd();
      const detail = (key: string, value: string) => `  ${key.padEnd(9)}  ${value}`;
      return [
        head,
        ...(r.unused ? [detail("unused", r.unused)] : []),
        ...(r.runsAsTyped ? [detail("as typed", r.runsAsTyped)] : []),
        detail("pinned", r.pinned),
        detail("captured", r.captured),
        detail("injected", r.injected),
        detail("resumable", r.resumable),
        detail("attention", r.attention),
      ];
    });
    writeStdout(`${lines.map((l) => printable(l)).join("\n")}\n`);
  },
});
