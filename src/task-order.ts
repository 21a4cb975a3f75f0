// Start and stop order (docs/services.md): `after` names the entries a task waits on and for what
// (started, ready, done); a cycle is refused; a stop ends dependents before what they depend on.
// Pure: the daemon (daemon-order.ts) holds the waiting entries and asks these rules.
import type { ReadyState } from "./task-ready.ts";

export const AFTER_FORMS = ["started", "ready", "done"] as const;
export type AfterForm = (typeof AFTER_FORMS)[number];
/** As a recipe writes it: names (each ready if it has a probe, else started), or names with a form. */
export type After = string[] | Record<string, AfterForm>;

/** One condition: `up` is the array form's, ready where the dependency has a probe, started where not. */
export interface Condition {
  name: string;
  form: AfterForm | "up";
}

export function conditionsOf(after: After | undefined): Condition[] {
  if (after === undefined) return [];
  if (Array.isArray(after)) return after.map((name) => ({ name, form: "up" }));
  return Object.entries(after).map(([name, form]) => ({ name, form }));
}

/** What a waiting entry needs to know of a task it waits on. */
export interface DependencyState {
  running: boolean;
  exitCode: number | null;
  signal: string | null;
  /** Its readiness, null when it has no probe. */
  ready: ReadyState | null;
  readyTimeoutSeconds: number | null;
  /** Its restart policy will start it again (a backoff under way, or a run it stops for not being ready): no failure is final yet. */
  restarting?: boolean;
}

export type Verdict = "met" | "wait" | { failed: string };

/** Whether `condition` holds on its dependency, may still, or never will (and why, as `which exited 1`). */
export function verdict(form: Condition["form"], dep: DependencyState | null): Verdict {
  if (dep === null) return { failed: "which did not start" };
  const said = runVerdict(form, dep);
  return dep.restarting && said !== "met" ? "wait" : said;
}

function runVerdict(form: Condition["form"], dep: DependencyState): Verdict {
  const ended = dep.running ? null : dep.signal ? `which was killed (${dep.signal})` : `which exited ${dep.exitCode}`;
  if (form === "done") {
    if (dep.running) return "wait";
    return dep.exitCode === 0 && dep.signal === null ? "met" : { failed: ended! };
  }
  if (form === "started" || dep.ready === null) return "met";
  if (dep.ready === "ready") return "met";
  if (dep.ready === "not-ready") return { failed: `which was not ready after ${dep.readyTimeoutSeconds}s` };
  return ended ? { failed: `${ended} before it was ready` } : "wait";
}

/** `api not started: waits on db, which exited 1`. */
export function notStartedText(name: string, dependency: string, why: string): string {
  return `${name} not started: waits on ${dependency}, ${why}`;
}

/** A cycle among the named entries (`a → b → a`), or null. Names not among them are not followed. */
export function findCycle(nodes: ReadonlyMap<string, readonly string[]>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (name: string): string[] | null => {
    const seen = state.get(name);
    if (seen === "done") return null;
    if (seen === "open") return [...path.slice(path.indexOf(name)), name];
    state.set(name, "open");
    path.push(name);
    for (const next of nodes.get(name) ?? []) {
      if (!nodes.has(next)) continue;
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(name, "done");
    return null;
  };
  for (const name of nodes.keys()) {
    const cycle = visit(name);
    if (cycle) return cycle;
  }
  return null;
}

/**
 * The order to stop `items` in, as waves: each wave holds what nothing left still depends on, so
 * dependents stop before what they depend on. `dependsOn(a)` names a's dependencies among items.
 */
export function stopWaves<T>(items: readonly T[], dependsOn: (item: T) => readonly T[]): T[][] {
  const left = new Set(items);
  const waves: T[][] = [];
  while (left.size > 0) {
    const needed = new Set<T>();
    for (const item of left) for (const dep of dependsOn(item)) if (left.has(dep) && dep !== item) needed.add(dep);
    let wave = [...left].filter((item) => !needed.has(item));
    // A cycle (a live fleet can make one by renaming): what is left stops together.
    if (wave.length === 0) wave = [...left];
    for (const item of wave) left.delete(item);
    waves.push(wave);
  }
  return waves;
}
