// citty's defineCommand without loading citty: it is the identity, typed, and the commands run in
// loops (ls, attach) are defined with it so that running them in their plain shapes (cli.ts) never
// loads citty and node:util, ~1 ms of a one-shot client's start-up.
import type { ArgsDef, CommandDef } from "citty";

export function defineCommand<const T extends ArgsDef = ArgsDef>(def: CommandDef<T>): CommandDef<T> {
  return def;
}
