// Text whose width terminals count differently unless they follow Unicode 11+ widths, grapheme
// clusters and emoji presentation: used by test/tmux-widths.test.ts and test/text-width.test.ts.

/**
 * Samples on which tmux, modern terminals (kitty, WezTerm, Ghostty, iTerm2, Windows Terminal) and
 * our emulator agree.
 */
export const CORPUS: [name: string, sample: string][] = [
  ["ascii", "abc"],
  ["check", "\u2705"], // ✅, wide since Unicode 9: the case from the field report
  ["party", "\u{1F389}"], // 🎉
  ["rocket", "\u{1F680}"],
  ["watch", "\u231A"], // ⌚ wide in the BMP
  ["star", "\u2B50"], // ⭐
  ["family", "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}"], // 👨‍👩‍👧 one ZWJ sequence, two columns
  ["technologist", "\u{1F468}\u200D\u{1F4BB}"], // 👨‍💻
  ["flag", "\u{1F1EB}\u{1F1F7}"], // 🇫🇷 a regional-indicator pair
  ["text-style", "\u{1F600}\uFE0E"], // 😀︎ VS15 does not narrow a wide emoji
  ["heart-text", "\u2764"], // ❤ alone is narrow
  ["unicode-14", "\u{1F979}\u{1FAE0}"], // 🥹🫠 newer than the addon's tables (text-width.ts adds them)
  ["cjk", "\u6F22\u5B57"], // 漢字
  ["kana", "\u30B3\u30FC\u30C9"], // コード
  ["hangul", "\uD55C\uAE00"], // 한글
  ["fullwidth", "\uFF21\uFF22"], // ＡＢ
  ["combining", "e\u0301"], // é as e + COMBINING ACUTE
  ["two-marks", "a\u0308\u0304"], // ǟ
  ["box", "\u250C\u2500\u252C\u2510\u2502\u2514\u2518"], // ┌─┬┐│└┘
  ["greek", "\u03B1\u03B2\u2026"], // αβ…
  ["mixed", "a\u2705b\u6F22c\u{1F468}\u200D\u{1F469}\u200D\u{1F467}d\u{1F1EB}\u{1F1F7}e\u0301f"],
];

/**
 * Where tmux 3.3a (Debian 12's) differs from modern terminals, and so from us: it ignores VS16, which
 * makes a narrow base two columns wide (❤️ ☀️ 1️⃣ 🏳️‍🌈 are one column in tmux 3.3a; tmux 3.4
 * changed this), and it does not join a skin-tone modifier to its emoji (👍🏽 is four columns).
 * test/tmux-widths.test.ts leaves them out; test/text-width.test.ts pins the modern widths.
 */
export const TMUX_33_DIFFERS: [name: string, sample: string][] = [
  ["heart-emoji", "\u2764\uFE0F"],
  ["sun-emoji", "\u2600\uFE0F"],
  ["keycap", "1\uFE0F\u20E3"],
  ["rainbow-flag", "\u{1F3F3}\uFE0F\u200D\u{1F308}"],
  ["skin-tone", "\u{1F44D}\u{1F3FD}"],
];
