// citty's defineCommand without loading citty: it is the identity, typed, and the commands run in
// loops (ls, attach) are defined with it so that running them in their plain shapes (kit-plain-args.ts)
// never loads citty and node:util, a share of a one-shot client's start-up (docs/benchmarks.md). A command carries its own
// facts here, as tmux's cmd_entry does: the runner, host routing and the fast path read them off the
// definition, so adding a command touches its own file and the command table, nothing else.
import type { ArgsDef, CommandDef } from "citty";

/** What the runner needs to know of a command besides its arguments; each absent fact is "no". */
export type CommandFacts = {
  /** Which of its positionals are TASKs (each may be written HOST:TASK). */
  readonly tasks?: "first" | "all" | "after-first";
  /** How it reaches another host: over the ssh transport, or the host's own fleetcom runs it there (it reads or writes the host's files). */
  readonly remote?: "transport" | "there";
  /**
   * Run there, its first word is due within the one-host bound: it reads that host's files and asks
   * its daemon. Any other command run there may rightly be silent for minutes (client-host-command.ts).
   */
  readonly quick?: boolean;
  /** Its `--worktree` touches a git worktree: on another host, that host's, so the host's own fleetcom runs it. */
  readonly worktree?: boolean;
  /** Its plain shapes run without citty (kit-plain-args.ts plainArgs). */
  readonly plain?: boolean;
};

export type Command<T extends ArgsDef = ArgsDef> = CommandDef<T> & { readonly facts?: CommandFacts };

export function defineCommand<const T extends ArgsDef = ArgsDef>(def: Command<T>): Command<T> {
  return def;
}

/** A definition's facts; none for one defined without them (citty's own, a subcommand). */
export function factsOf(def: CommandDef<any> | null): CommandFacts {
  return (def as Command<any> | null)?.facts ?? {};
}
