// `fleetcom agents [--verbose] [--json]`: every agent fleetcom knows (built-in, and declared in
// config.toml), the version found on PATH, and in a user's words whether a rerun or a recovery
// resumes the same conversation with that version and how fleetcom knows it waits; `--verbose` adds
// what fleetcom pins, captures and injects for it. Asks no daemon: the versions and options come from each binary
// (`--version`, `--help`), asked once per build and kept in the probe's cache (agent-probe.ts).
import { defineCommand } from "./kit-define.ts";

export default defineCommand({
  meta: {
    name: "agents",
    description: "List the agents fleetcom knows: the version on PATH, whether a rerun resumes the same conversation, how fleetcom knows one waits",
  },
  args: {
    verbose: { type: "boolean", alias: "v", description: "Also say what fleetcom pins, captures and injects for each (how it finds the conversation)" },
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
      const head = `${r.name}  ${found}${r.kind === "declared" ? "  (declared in config.toml)" : ""}`;
      const detail = (key: string, value: string) => `  ${key.padEnd(9)}  ${value}`;
      const said = [
        ...(r.path === null ? [] : [detail("resume", resumeWords(r, r.version)), detail("waiting", waitingWords(r.attention))]),
        ...(r.unused ? [detail("unused", r.unused)] : []),
        ...(r.runsAsTyped ? [detail("as typed", `run exactly as typed: ${r.runsAsTyped}`)] : []),
      ];
      if (!args.verbose) return [head, ...said];
      return [head, ...said, detail("pinned", r.pinned), detail("captured", r.captured), detail("injected", r.injected), detail("resumable", r.resumable)];
    });
    writeStdout(`${lines.map((l) => printable(l)).join("\n")}\n`);
  },
});

/** Whether a rerun or a recovery brings the same conversation back, with the version found, in a user's words. */
function resumeWords(facts: { tested: Record<string, string> }, version: string | null): string {
  const verified = Object.keys(facts.tested).filter((v) => facts.tested[v] === "resume verified");
  const known = version === null ? undefined : facts.tested[version];
  const same = "a rerun or a recovery resumes the same conversation";
  if (known === "resume verified") return `${same}: verified with ${version}`;
  if (known !== undefined) return `${same}, except with this version: it has ${known}`;
  if (verified.length > 0) return `${same}: verified with ${verified.join(", ")}, not yet with this version`;
  return `${same} if the agent supports it: not verified`;
}

/** How fleetcom learns that the agent waits for its user, in a user's words. */
function waitingWords(attention: string): string {
  if (attention.startsWith("hooks")) return "its hooks tell fleetcom when it waits for you (a prompt, a permission)";
  if (attention.startsWith("notify")) return "its notify program tells fleetcom when a turn ends";
  if (attention.startsWith("its Stop hook")) return "its Stop hook tells fleetcom when a turn ends, once added to its settings (docs/agents.md)";
  if (attention.startsWith("fleetcom's plugin")) return "fleetcom's plugin tells fleetcom when it waits for you";
  if (attention === "its own channel") return "its own channel tells fleetcom when it waits for you";
  return "fleetcom knows it waits only when it rings the terminal bell";
}
