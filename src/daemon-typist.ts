// Typing into a task as a person at its keyboard would (`fleetcom send`). TUIs such as Codex and
// Command Code read their terminal raw and take one read that holds text and a CR as a paste: the
// text lands in the input box with a newline and nothing is submitted. So the text goes first, as
// a bracketed paste when the task turned that mode on (then it is text, whatever it holds), and the
// Enter goes as its own write once the program has read the text: after the task printed something
// (its echo or redraw) and went quiet for a moment, or after a bounded wait when it prints nothing.
// A TUI may also take an Enter that follows text closely as part of that text: Codex after
// fast-typed characters (its paste-burst window), Gemini after a bracketed paste (its paste guard,
// a timer it starts when it reads the paste). So after text the Enter also waits a guard that is
// longer than any such window, counted from when the program showed it read the text (it starts its
// timer no later than that), or from the write when it shows nothing.
//
// Multi-line text without --paste is typed line by line, each submitted (a person typing a
// script); with --paste it is one paste, then one Enter, so it arrives as one message. Named keys
// go one write each, with the same wait between them. Sends to one task never interleave.
import { EXIT, UserError } from "./errors.ts";
import { KEY_NAMES_HELP, type KeyModes, keyBytes, unknownKey } from "./term-keys.ts";
import type { TaskScreen } from "./term-screen.ts";

/** The task side typing needs. */
export interface Typed {
  readonly running: boolean;
  readonly screen: Pick<TaskScreen, "inputModes">;
  /**
   * The user answered what the task asked. Called as the first key goes in, before anything the
   * program prints or its hooks say in reply: a fast agent's next question is new, not answered.
   */
  attended(): void;
  write(data: string): void;
}

export interface SendRequest {
  text?: string;
  /** Press Enter after the text. Absent: an older client's request, whose text is written as it is. */
  enter?: boolean;
  paste?: boolean;
  keys?: string[];
}

/** How long to wait for the program to show it read a write, before going on anyway. */
const ECHO_WAIT_MS = 500;
/** Output quiet this long after the echo means the redraw is done. */
const SETTLE_MS = 30;
/** The most a step waits in all. */
const STEP_MAX_MS = 800;
/**
 * The Enter after text waits this long after the program showed it read the text: longer than the
 * windows in which the TUIs we know take an Enter as part of a paste (Codex's paste burst, Gemini's
 * paste guard), with room for a loaded machine.
 */
const TEXT_GUARD_MS = 150;

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/** The text as one bracketed paste; an end marker inside it could end the paste early and is dropped. */
export function bracketed(text: string): string {
  return `${PASTE_START}${text.replaceAll(PASTE_END, "")}${PASTE_END}`;
}

/** One write of a send: typed text, a named key, or (an older client's request) bytes as they are. */
export type Step = { text: string } | { key: string } | { raw: string };

/** The writes a send makes, in order. */
export function steps(request: SendRequest): Step[] {
  if (request.keys) return request.keys.map((key) => ({ key }));
  const text = request.text ?? "";
  if (request.enter === undefined && !request.paste) return text === "" ? [] : [{ raw: text }];
  const lines = request.paste ? [text] : text.split(/\r?\n/);
  return lines.flatMap((line, i) => {
    const more = i < lines.length - 1 || request.enter;
    return [...(line === "" ? [] : [{ text: line }]), ...(more ? [{ key: "Enter" }] : [])];
  });
}

/** A step's bytes under the task's current input modes; null for a name that is no key. */
export function render(step: Step, modes: KeyModes & { bracketedPaste: boolean }): string | null {
  if ("raw" in step) return step.raw;
  if ("key" in step) return keyBytes(step.key, modes);
  return modes.bracketedPaste ? bracketed(step.text) : step.text;
}

export class Typist {
  private readonly queues = new WeakMap<object, Promise<void>>();
  private readonly listeners = new Map<object, Set<() => void>>();

  /** The daemon calls this for every chunk a task prints. */
  output(task: object): void {
    for (const listener of this.listeners.get(task) ?? []) listener();
  }

  /** Types the request into the task; resolves once the last write is made. */
  send(task: Typed, request: SendRequest): Promise<void> {
    const unknown = request.keys && unknownKey(request.keys);
    if (unknown) return Promise.reject(new UserError(`unknown key '${unknown}' (keys: ${KEY_NAMES_HELP})`, EXIT.usage));
    const previous = this.queues.get(task) ?? Promise.resolve();
    const mine = previous.then(() => this.type(task, steps(request)));
    this.queues.set(
      task,
      mine.catch(() => {}),
    );
    return mine;
  }

  private async type(task: Typed, plan: Step[]): Promise<void> {
    for (const [i, step] of plan.entries()) {
      // Modes as the task set them by now (a program may turn bracketed paste on as it starts):
      // inputModes parses what waits when it can hold a mode, and makes no emulator when it cannot.
      if (!task.running) return;
      const bytes = render(step, task.screen.inputModes())!;
      if (i === 0) task.attended();
      task.write(bytes);
      if (i < plan.length - 1) await this.read(task, "text" in step);
    }
  }

  /**
   * Waits until the program has read what was just written (or the bounded wait is over); after
   * text, also until the guard has passed since the program showed it read it.
   */
  private async read(task: Typed, afterText: boolean): Promise<void> {
    const began = performance.now();
    const deadline = began + STEP_MAX_MS;
    let shown = began;
    if (await this.nextOutput(task, ECHO_WAIT_MS)) {
      shown = performance.now();
      while (performance.now() < deadline && (await this.nextOutput(task, Math.min(SETTLE_MS, deadline - performance.now())))) {}
    }
    const guard = shown + TEXT_GUARD_MS - performance.now();
    if (afterText && guard > 0) await new Promise((r) => setTimeout(r, guard));
  }

  /** True when the task prints something within `ms`. */
  private nextOutput(task: object, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const set = this.listeners.get(task) ?? new Set();
      this.listeners.set(task, set);
      const done = (printed: boolean) => {
        clearTimeout(timer);
        set.delete(listener);
        if (set.size === 0) this.listeners.delete(task);
        resolve(printed);
      };
      const listener = () => done(true);
      const timer = setTimeout(() => done(false), Math.max(0, ms));
      set.add(listener);
    });
  }
}
