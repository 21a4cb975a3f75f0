// Quoting for POSIX `sh`, the one helper for it: a word quoted here is read back by any POSIX shell
// (and by bash and zsh) as exactly that word, whatever it holds (quotes, `$`, backslashes, newlines,
// bytes no terminal shows). Single quotes are the only quoting used: nothing is special inside them,
// and a single quote itself is written as `'\''` (close, escaped quote, reopen).

// Characters no shell treats specially anywhere in a word; `=` and `~` are not among them at the
// start of one (zsh expands `=cmd`, every shell `~user`), so only the rest of a word may hold them.
const PLAIN_WORD = /^[\p{L}\p{M}\p{N}_@%+:,./-][\p{L}\p{M}\p{N}_@%+:,./=~-]*$/u;

/** Always single-quoted: the form spliced into the commands fleetcom builds (agent ids, paths). */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Bare when nothing in it needs quoting, else single-quoted: the readable form of one word. */
export function shellWord(word: string): string {
  return PLAIN_WORD.test(word) ? word : shellQuote(word);
}

// Words a shell takes as its own syntax in a command's first position (bash, zsh, POSIX): quoted
// there, `time` is the program of that name, not the shell's keyword.
const RESERVED = new Set(
  "! { } [[ ]] case coproc do done elif else end esac fi for foreach function if in nocorrect repeat select then time until while".split(" "),
);

/**
 * One command line that `$SHELL -c` runs as exactly this argv (tmux's rule for a command given as
 * several words, not ssh's plain join): `["printf", "%s\n", "a b"]` → `printf '%s\n' 'a b'`.
 */
export function shellJoin(words: readonly string[]): string {
  return words.map((word, i) => (i === 0 && RESERVED.has(word) ? shellQuote(word) : shellWord(word))).join(" ");
}
