// Shell completion scripts for bash, zsh and fish, as pure functions of a description of the
// command line (built from the citty definitions by cmd-completions.ts). What is static (commands,
// flags) is written into the script; what changes (saved sessions, live tasks) the script asks
// fleetcom for at completion time with `completions --list sessions|tasks`, which never starts a
// daemon.
import { shellWord } from "./text-shell.ts";

/** What a positional argument or a flag's value completes to. */
export type Operand = "tasks" | "sessions" | "files" | "dirs" | "shells" | "command" | "none";

export interface FlagSpec {
  long: string; // "--json"
  short: string | null; // "-f"
  takesValue: boolean;
  value: Operand;
  description: string;
}

export interface CommandSpec {
  name: string;
  description: string;
  flags: FlagSpec[];
  subcommands: CommandSpec[];
  operand: Operand; // the first positional argument
  repeatsOperand: boolean; // `kill TASK…`: every positional is one
  afterDashDash: Operand; // `run -- CMD…`
}

export interface CompletionSpec {
  program: string[]; // argv that runs this fleetcom, for the dynamic lists
  rootFlags: FlagSpec[];
  commands: CommandSpec[];
}

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

export function completionScript(shell: Shell, spec: CompletionSpec): string {
  return { bash: bashScript, zsh: zshScript, fish: fishScript }[shell](spec);
}

function listCommand(spec: CompletionSpec, what: "sessions" | "tasks"): string {
  return `${spec.program.map(shellWord).join(" ")} completions --list ${what} 2>/dev/null`;
}

function flagWords(flags: FlagSpec[]): string[] {
  return flags.flatMap((f) => (f.short ? [f.long, f.short] : [f.long]));
}

function valuedFlags(flags: FlagSpec[]): FlagSpec[] {
  return flags.filter((f) => f.takesValue);
}

// Each command's facts as shell case arms, shared by bash and zsh, which parse the line the same way.
function commandFacts(command: CommandSpec, indent: string): string {
  const subs = command.subcommands.map((s) => s.name).join(" ");
  return [
    `${indent}${shellWord(command.name)})`,
    `${indent}  flags=${shellWord(flagWords(command.flags).join(" "))}`,
    `${indent}  valued=${shellWord(flagWords(valuedFlags(command.flags)).join(" "))}`,
    `${indent}  subs=${shellWord(subs)} operand=${command.operand} repeat=${command.repeatsOperand ? 1 : 0} rest=${command.afterDashDash} ;;`,
  ].join("\n");
}

function valueCases(spec: CompletionSpec, indent: string): string {
  const all = [...spec.rootFlags, ...spec.commands.flatMap((c) => [...c.flags, ...c.subcommands.flatMap((s) => s.flags)])];
  const byOperand = new Map<Operand, Set<string>>();
  for (const flag of valuedFlags(all)) {
    const words = byOperand.get(flag.value) ?? new Set<string>();
    for (const word of flagWords([flag])) words.add(word);
    byOperand.set(flag.value, words);
  }
  return [...byOperand].map(([operand, words]) => `${indent}${[...words].join("|")}) kind=${operand} ;;`).join("\n");
}

// The line walk both bash and zsh do: find the command (and sub-command), count positionals, skip
// flag values, notice `--`; then decide what kind of word is being completed.
function lineWalk(spec: CompletionSpec, first: string, last: string, word: (i: string) => string, prev: string, cur: string): string {
  const commandCases = spec.commands
    .flatMap((c) => [commandFacts(c, "      "), ...c.subcommands.map((s) => commandFacts({ ...s, name: `${c.name}/${s.name}` }, "      "))])
    .join("\n");
  return `  local cmd="" flags=${shellWord(flagWords(spec.rootFlags).join(" "))} valued="" subs="" operand=none repeat=0 rest=none
  local npos=0 dashdash=0 skip=0 i w kind
  for ((i = ${first}; i < ${last}; i++)); do
    w=${word("i")}
    if ((skip)); then skip=0; continue; fi
    if ((dashdash)); then npos=$((npos + 1)); continue; fi
    if [[ $w == -- ]]; then dashdash=1; npos=0; continue; fi
    if [[ $w == -* ]]; then
      [[ " $valued " == *" $w "* ]] && skip=1
      continue
    fi
    if [[ -z $cmd ]] || [[ -n $subs && " $subs " == *" $w "* ]]; then
      if [[ -z $cmd ]]; then cmd=$w; else cmd="$cmd/$w"; fi
      case $cmd in
${commandCases}
      *) operand=none subs="" ;;
      esac
      continue
    fi
    npos=$((npos + 1))
  done
  kind=none
  if ((dashdash)); then
    if ((npos == 0)); then kind=$rest; elif [[ $rest != none ]]; then kind=files; fi
  elif ((skip)); then
    case ${prev} in
${valueCases(spec, "    ")}
    esac
  elif [[ ${cur} == -* ]]; then
    kind=flags
  elif [[ -z $cmd ]]; then
    kind=top
  elif [[ -n $subs ]]; then
    kind=subs
  elif ((npos == 0 || repeat)); then
    kind=$operand
  fi`;
}

function bashScript(spec: CompletionSpec): string {
  const topWords = spec.commands.map((c) => c.name).join(" ");
  return `# fleetcom completion for bash: subcommands, flags, saved sessions and live tasks.
# Load it with:  source <(fleetcom completions bash)
# or install it: fleetcom completions bash > ~/.local/share/bash-completion/completions/fleetcom

# Sets COMPREPLY to the lines of stdin that start with the word being completed, quoted for the shell.
_fleetcom_reply() {
  local line
  while IFS= read -r line; do
    [[ -n $line && $line == "$1"* ]] && COMPREPLY+=("$(printf '%q' "$line")")
  done
}

_fleetcom() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]}
  COMPREPLY=()
${lineWalk(spec, "1", "COMP_CWORD", (i) => `\${COMP_WORDS[${i}]}`, "$prev", "$cur")}
  case $kind in
    flags) COMPREPLY=($(compgen -W "$flags" -- "$cur")) ;;
    top)
      COMPREPLY=($(compgen -W ${shellWord(topWords)} -- "$cur"))
      _fleetcom_reply "$cur" < <(${listCommand(spec, "sessions")}) ;;
    subs) COMPREPLY=($(compgen -W "$subs" -- "$cur")) ;;
    tasks) _fleetcom_reply "$cur" < <(${listCommand(spec, "tasks")} | cut -f1) ;;
    sessions)
      _fleetcom_reply "$cur" < <(${listCommand(spec, "sessions")})
      # A recipe file works too; session names are already quoted, so no "-o filenames" here.
      [[ $cmd == load ]] && COMPREPLY+=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -S / -- "$cur")) ;;
    shells) COMPREPLY=($(compgen -W ${shellWord(SHELLS.join(" "))} -- "$cur")) ;;
    command) COMPREPLY=($(compgen -c -- "$cur")) ;;
    files) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
    dirs) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")) ;;
  esac
}

complete -F _fleetcom fleetcom
`;
}

function zshDescribe(flags: FlagSpec[]): string {
  const escapeColons = (text: string) => text.replaceAll("\\", "\\\\").replaceAll(":", "\\:");
  return flagWords(flags).length ? flags.flatMap((f) => flagWords([f]).map((w) => shellWord(`${w}:${escapeColons(f.description)}`))).join(" ") : "";
}

function zshScript(spec: CompletionSpec): string {
  const describeCases = spec.commands
    .flatMap((c) => [c, ...c.subcommands.map((s) => ({ ...s, name: `${c.name}/${s.name}` }))])
    .map((c) => `      ${shellWord(c.name)}) described=(${zshDescribe(c.flags)}) ;;`)
    .join("\n");
  const topCommands = spec.commands.map((c) => shellWord(`${c.name}:${c.description.replaceAll(":", "\\:")}`)).join(" ");
  return `#compdef fleetcom
# fleetcom completion for zsh: subcommands, flags, saved sessions and live tasks.
# Load it with:  source <(fleetcom completions zsh)     (after compinit)
# or install it: fleetcom completions zsh > "\${fpath[1]}/_fleetcom"

_fleetcom() {
  setopt localoptions noksharrays
  local prev=\${words[CURRENT-1]} cur=\${words[CURRENT]}
${lineWalk(spec, "2", "CURRENT", (i) => `\${words[${i}]}`, "$prev", "$cur")}
  local -a described lines
  case $kind in
    flags)
      case $cmd in
      '') described=(${zshDescribe(spec.rootFlags)}) ;;
${describeCases}
      esac
      _describe -t flags flag described ;;
    top)
      described=(${topCommands})
      _describe -t commands command described
      lines=("\${(@f)$(${listCommand(spec, "sessions")})}")
      compadd -X session -- \${lines:#} ;;
    subs) compadd -- \${=subs} ;;
    tasks)
      lines=("\${(@f)$(${listCommand(spec, "tasks")})}")
      described=()
      for w in \${lines:#}; do described+=("\${\${w%%$'\\t'*}//:/\\\\:}:\${w#*$'\\t'}"); done
      _describe -t tasks task described ;;
    sessions)
      lines=("\${(@f)$(${listCommand(spec, "sessions")})}")
      compadd -X session -- \${lines:#}
      [[ $cmd == load ]] && _files -g '*.json' ;;
    shells) compadd -- ${SHELLS.join(" ")} ;;
    command) _command_names -e ;;
    files) _files ;;
    dirs) _files -/ ;;
  esac
}

if [[ \${funcstack[1]} == _fleetcom ]]; then _fleetcom "$@"; else compdef _fleetcom fleetcom; fi
`;
}

function fishQuote(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

// The `-a` argument that runs `completions --list`: fish evaluates it when it completes, so the
// program's words are quoted for fish (not sh) and the whole substitution is quoted once more, which
// keeps a binary under `/opt/my tools/` one word at both levels.
function fishList(spec: CompletionSpec, what: "sessions" | "tasks"): string {
  return fishQuote(`(${spec.program.map(fishQuote).join(" ")} completions --list ${what} 2>/dev/null)`);
}

function fishFlag(condition: string, flag: FlagSpec): string {
  const parts = [`complete -c fleetcom -n ${fishQuote(condition)} -l ${flag.long.replace(/^--/, "")}`];
  if (flag.short) parts.push(`-s ${flag.short.replace(/^-/, "")}`);
  if (flag.takesValue) parts.push(flag.value === "dirs" ? "-r -f -a '(__fish_complete_directories)'" : "-r");
  parts.push(`-d ${fishQuote(flag.description)}`);
  return parts.join(" ");
}

function fishOperand(condition: string, operand: Operand, spec: CompletionSpec): string | null {
  const quoted = fishQuote(condition);
  switch (operand) {
    case "tasks":
      return `complete -c fleetcom -n ${quoted} -a ${fishList(spec, "tasks")}`;
    case "sessions":
      return `complete -c fleetcom -n ${quoted} -a ${fishList(spec, "sessions")} -d session`;
    case "shells":
      return `complete -c fleetcom -n ${quoted} -a ${fishQuote(SHELLS.join(" "))}`;
    case "files":
      return `complete -c fleetcom -n ${quoted} -F`;
    case "dirs":
      return `complete -c fleetcom -n ${quoted} -a '(__fish_complete_directories)'`;
    case "command":
      return `complete -c fleetcom -n ${quoted} -a '(__fish_complete_command)'`;
    case "none":
      return null;
  }
}

function fishScript(spec: CompletionSpec): string {
  const lines = [
    "# fleetcom completion for fish: subcommands, flags, saved sessions and live tasks.",
    "# Install it with: fleetcom completions fish > ~/.config/fish/completions/fleetcom.fish",
    "complete -c fleetcom -f",
    "# True when the first word after fleetcom that is not a flag is $name.",
    "function __fleetcom_command_is --argument-names name",
    "    for word in (commandline -opc)[2..-1]",
    "        string match -q -- '-*' $word; and continue",
    '        test "$word" = "$name"; return',
    "    end",
    "    return 1",
    "end",
    ...spec.rootFlags.map((f) => fishFlag("__fish_use_subcommand", f)),
    ...spec.commands.map((c) => `complete -c fleetcom -n __fish_use_subcommand -a ${c.name} -d ${fishQuote(c.description)}`),
    `complete -c fleetcom -n __fish_use_subcommand -a ${fishList(spec, "sessions")} -d session`,
  ];
  for (const command of spec.commands) {
    const seen = `__fleetcom_command_is ${command.name}`;
    lines.push(...command.flags.map((f) => fishFlag(seen, f)));
    if (command.subcommands.length) {
      const subNames = command.subcommands.map((s) => s.name).join(" ");
      const noSub = `${seen}; and not __fish_seen_subcommand_from ${subNames}`;
      lines.push(...command.subcommands.map((s) => `complete -c fleetcom -n ${fishQuote(noSub)} -a ${s.name} -d ${fishQuote(s.description)}`));
      for (const sub of command.subcommands) {
        const inSub = `${seen}; and __fish_seen_subcommand_from ${sub.name}`;
        lines.push(...sub.flags.map((f) => fishFlag(inSub, f)));
        const operand = fishOperand(inSub, sub.operand, spec);
        if (operand) lines.push(operand);
      }
    }
    const operand = fishOperand(seen, command.operand, spec);
    if (operand) lines.push(operand);
    if (command.afterDashDash !== "none") {
      lines.push(`complete -c fleetcom -n ${fishQuote(`${seen}; and contains -- -- (commandline -opc)`)} -F -a '(__fish_complete_command)'`);
    }
  }
  return `${lines.join("\n")}\n`;
}
