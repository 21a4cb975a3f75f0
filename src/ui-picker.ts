// The one line-oriented picker: `o` in the dashboard, `fleetcom load` and `fleetcom recover` without
// an argument, `fleetcom attach` without TASK. ↑/↓, Home/End and PgUp/PgDn move as in the
// dashboard (with its `⋮ N more` for rows cut off), typing filters (case-insensitive substring),
// Enter picks, Esc cancels. A picker may hold several lists (saved sessions and
// recovery snapshots): Tab flips between them while the others have items, and each list keeps its
// own filter and highlight (Shift-Tab flips back the other way, as in Rust fleetcom). List actions
// (rename, delete) run without leaving the picker.
import { KeyInput, keyEntry, keyName, type Key, type KeyId } from "./ui-keys.ts";
import { askLine, PROMPT_ROWS } from "./ui-prompt.ts";
import { printable } from "./text-printable.ts";
import { Region, fit, paint, windowAround } from "./ui-render.ts";
import { textWidth } from "./text-width.ts";

export interface PickItem<T> {
  /** Identity across refreshes: the highlight follows it. */
  key: string;
  text: string;
  /** What the filter is matched against. */
  match: string;
  value: T;
  /** Why this row cannot be picked (a damaged file), shown when Enter is pressed on it. */
  unavailable?: string | undefined;
}

export interface PickerTools {
  ask(message: string, initialValue?: string): Promise<string | null>;
  confirm(question: string): Promise<boolean>;
  say(message: string): void;
  /** Highlight this key after the lists are read again (a renamed file). */
  highlight(key: string): void;
}

export interface PickAction<T> {
  key: KeyId;
  hint: string;
  run(item: PickItem<T>, tools: PickerTools): Promise<void>;
}

export interface PickList<T> {
  id: string;
  title: string;
  /** What Tab flips to, as the hint names it: `tab recovery (2)`. */
  tabName: string;
  pickHint: string;
  empty: string;
  items(): PickItem<T>[];
  actions?: PickAction<T>[];
}

export interface Picked<T> {
  list: string;
  value: T;
}

export interface PickerOptions<T> {
  lists: PickList<T>[];
  start?: number;
  /** The dashboard passes its own screen block and keys; standalone the picker makes and clears its own. */
  region?: Region;
  keys?: KeyInput;
  /** Rows to keep free below the block (the dashboard's prompts). */
  reserve?: number;
}

interface ListState {
  filter: string;
  highlight: string | null;
}

export function pick<T>(options: PickerOptions<T>): Promise<Picked<T> | null> {
  return new Picker(options).run();
}

class Picker<T> {
  private readonly region: Region;
  private readonly keys: KeyInput;
  private readonly own: boolean;
  private readonly states: ListState[];
  private items: PickItem<T>[][];
  private current: number;
  private status: { text: string; error: boolean } | null = null;
  private busy = false;
  private confirming: ((yes: boolean) => void) | null = null;
  private finish!: (picked: Picked<T> | null) => void;

  constructor(private readonly options: PickerOptions<T>) {
    this.own = !options.region;
    this.region = options.region ?? new Region();
    this.keys = options.keys ?? new KeyInput();
    this.states = options.lists.map(() => ({ filter: "", highlight: null }));
    this.items = options.lists.map((list) => list.items());
    this.current = options.start ?? 0;
  }

  run(): Promise<Picked<T> | null> {
    const done = new Promise<Picked<T> | null>((resolve) => (this.finish = resolve));
    const onKey = (key: Key) => this.onKey(key);
    const onResize = () => this.draw();
    this.keys.push(onKey);
    process.stdout.on("resize", onResize);
    this.draw();
    return done.finally(() => {
      process.stdout.off("resize", onResize);
      this.keys.pop(onKey);
      if (this.own) this.region.clear();
    });
  }

  private get list(): PickList<T> {
    return this.options.lists[this.current]!;
  }

  private get state(): ListState {
    return this.states[this.current]!;
  }

  private visible(index = this.current): PickItem<T>[] {
    const filter = this.states[index]!.filter.toLowerCase();
    return this.items[index]!.filter((item) => item.match.toLowerCase().includes(filter));
  }

  /** The highlighted row's index among the visible ones; the first row when its item is filtered out. */
  private highlighted(visible: PickItem<T>[]): number {
    const at = visible.findIndex((item) => item.key === this.state.highlight);
    return at === -1 ? 0 : at;
  }

  /** The list Tab (or, going the other way, Shift-Tab) goes to: the next one with items, or none. */
  private tabTarget(direction: 1 | -1 = 1): number | null {
    const count = this.options.lists.length;
    for (let step = 1; step < count; step++) {
      const index = (this.current + direction * step + count * step) % count;
      if (this.items[index]!.length > 0 || index === 0) return index;
    }
    return null;
  }

  private onKey(key: Key): void {
    if (this.confirming) {
      const answer = this.confirming;
      this.confirming = null;
      answer(key.name === "char" && key.text?.toLowerCase() === "y");
      return;
    }
    if (this.busy) return;
    this.status = null;
    const visible = this.visible();
    const at = this.highlighted(visible);
    const action = this.list.actions?.find((a) => a.key === keyName(key));
    if (key.name === "escape" || key.name === "ctrl-c") return this.finish(null);
    if (key.name === "enter") return this.choose(visible[at]);
    const by = keyEntry(this.moves(), key);
    if (by !== undefined) {
      const next = visible[Math.min(visible.length - 1, Math.max(0, at + by))];
      if (next) this.state.highlight = next.key;
    } else if (key.name === "tab" || key.name === "shift-tab") {
      const target = this.tabTarget(key.name === "tab" ? 1 : -1);
      if (target !== null) this.current = target;
    } else if (key.name === "backspace") {
      this.state.filter = [...this.state.filter].slice(0, -1).join("");
    } else if (key.name === "ctrl-u") {
      this.state.filter = "";
    } else if ((key.name === "char" || key.name === "space") && key.text) {
      this.state.filter += key.text;
    } else if (action && visible[at]) {
      void this.act(action, visible[at]!);
      return;
    }
    this.draw();
  }

  /** How far each moving key goes: a row, a page (the rows shown, less the two `⋮` lines), or to either end. */
  private moves(): Partial<Record<KeyId, number>> {
    const page = Math.max(1, this.room() - 2);
    return { up: -1, down: 1, pageup: -page, pagedown: page, home: -Infinity, end: Infinity };
  }

  /** The rows the list has: the terminal's height less the title, filter and hint lines, a status line and what is reserved. */
  private room(reserve = this.options.reserve ?? 0): number {
    return Math.max(1, this.region.height - 4 - reserve - (this.status ? 1 : 0));
  }

  private choose(item: PickItem<T> | undefined): void {
    if (!item) return this.draw();
    if (item.unavailable) {
      this.status = { text: item.unavailable, error: true };
      return this.draw();
    }
    this.finish({ list: this.list.id, value: item.value });
  }

  private async act(action: PickAction<T>, item: PickItem<T>): Promise<void> {
    this.busy = true;
    const tools: PickerTools = {
      ask: (message, initialValue) => {
        this.draw(PROMPT_ROWS);
        return askLine(this.region, this.keys, message, initialValue);
      },
      confirm: (question) => {
        this.status = { text: `${question} y/N`, error: false };
        this.draw();
        return new Promise((resolve) => (this.confirming = resolve));
      },
      say: (message) => (this.status = { text: message, error: false }),
      highlight: (key) => (this.state.highlight = key),
    };
    try {
      await action.run(item, tools);
    } catch (error) {
      this.status = { text: error instanceof Error ? error.message : String(error), error: true };
    }
    this.items = this.options.lists.map((list) => list.items());
    this.busy = false;
    this.draw();
  }

  private draw(reserve = this.options.reserve ?? 0): void {
    const columns = this.region.columns;
    const visible = this.visible();
    const at = this.highlighted(visible);
    const total = this.items[this.current]!.length;
    const title = `${this.list.title} (${visible.length === total ? total : `${visible.length} of ${total}`})`;
    const filterLine = `filter: ${printable(this.state.filter)}`;
    const lines = [paint.bold(fit(title, columns)), fit(filterLine, columns)];
    if (visible.length === 0) lines.push(paint.dim(fit(total === 0 ? `  ${this.list.empty}` : "  nothing matches the filter", columns)));
    const rows = visible.map((item, index) => {
      const chosen = index === at;
      const row = fit(`${chosen ? "›" : " "} ${printable(item.text)}`, columns);
      return { text: chosen ? paint.inverse(row) : item.unavailable ? paint.dim(row) : row, cursor: chosen, counted: true };
    });
    lines.push(...windowAround(rows, this.room(reserve), columns));
    if (this.status) lines.push((this.status.error ? paint.red : paint.green)(fit(printable(this.status.text), columns)));
    lines.push(paint.dim(fit(this.hint(), columns)));
    const filterColumn = Math.min(columns - 2, textWidth(filterLine));
    this.region.draw(lines, this.busy && !this.confirming ? undefined : { row: 1, col: filterColumn });
  }

  private hint(): string {
    const parts = ["↑↓ move", "type to filter", `enter ${this.list.pickHint}`, "esc cancel"];
    const target = this.tabTarget();
    if (target !== null) parts.push(`tab ${this.options.lists[target]!.tabName} (${this.items[target]!.length})`);
    for (const action of this.list.actions ?? []) parts.push(action.hint);
    return parts.join(" · ");
  }
}
