// `fleetcom send TASK [--no-enter] [--paste] TEXT…|-` and `fleetcom send TASK --keys KEY…`: type into
// the task's PTY as a person at its keyboard would. The daemon types the text, then presses Enter as
// its own key once the program has read the text (daemon-typist.ts); a multi-line text is typed line by
// line unless --paste makes it one message. `-` reads TEXT from stdin (one trailing newline dropped).
import { targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { withDaemon } from "./client.ts";
import { Buffer } from "node:buffer";
import { UserError, usageError } from "./errors.ts";
import { KEY_NAMES_HELP, MAX_SEND_BYTES, sendTooLong, unknownKey } from "./term-keys.ts";

export default defineCommand({
  facts: { tasks: "first", remote: "transport", plain: true },
  meta: { name: "send", description: "Type TEXT into the task, then Enter (or named keys with --keys)" },
  args: {
    task: { type: "positional", description: "TASK", required: true },
    text: { type: "positional", valueHint: "[TEXT…]", description: "The text to type (- reads it from stdin), or key names with --keys", required: false },
    enter: { type: "boolean", default: true, description: "Type the text without pressing Enter after it" },
    paste: { type: "boolean", description: "Send a multi-line TEXT as one paste (one message), not line by line" },
    keys: { type: "boolean", description: `Send named keys, one keypress each: ${KEY_NAMES_HELP}` },
  },
  async run(context) {
    const { args } = context;
    const target = targetIn(context);
    const words = args._.slice(1);
    if (args.keys) {
      if (words.length === 0) throw usageError("send --keys: name at least one KEY");
      const unknown = unknownKey(words);
      if (unknown) throw usageError(`send --keys: unknown key '${unknown}' (keys: ${KEY_NAMES_HELP})`);
      await withDaemon(target, (c) => c.request("send", { task: { typed: args.task }, keys: words }));
      return;
    }
    // Nothing at all is a slip (a script's empty variable, a forgotten argument), not a bare Enter
    // into an agent; an explicit '' still is one.
    if (words.length === 0) throw usageError("send: give the TEXT to type (- reads it from stdin; '' presses Enter alone)");
    const text = words.length === 1 && words[0] === "-" ? await readStdin() : words.join(" ");
    await withDaemon(target, (c) => c.request("send", { task: { typed: args.task }, text, enter: args.enter, paste: Boolean(args.paste) }));
  },
});

/**
 * Stdin as the text to type, one trailing newline dropped. Past the bound it is only counted, so a
 * too-long text is refused here with its size, not as a frame too large to send.
 */
async function readStdin(): Promise<string> {
  let chunks: Buffer[] = [];
  let bytes = 0;
  let tail = Buffer.alloc(0);
  for await (const chunk of process.stdin) {
    const buffer = Buffer.from(chunk);
    bytes += buffer.length;
    tail = Buffer.concat([tail, buffer]).subarray(-2);
    // Two bytes of slack: the newline dropped below may be "\r\n".
    if (bytes > MAX_SEND_BYTES + 2) chunks = [];
    else chunks.push(buffer);
  }
  if (bytes > MAX_SEND_BYTES + 2) throw new UserError(sendTooLong(bytes - newlineLength(tail)));
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

function newlineLength(tail: Buffer): number {
  const text = tail.toString("latin1");
  return text.endsWith("\r\n") ? 2 : text.endsWith("\n") ? 1 : 0;
}
