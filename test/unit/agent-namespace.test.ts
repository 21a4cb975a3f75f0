// The namespace directory reports changes to a run's files even when the watcher does not: Bun's
// fs.watch drops an event now and then (oven-sh/bun#7919; measured here: 1-5 of 200 two-write
// bursts lost their second event, none under Node). A write made through a hard link outside the
// directory is a change no directory watch reports, so it stands in for a dropped event.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { appendFileSync, linkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudeEventsFile } from "../../src/agent-claude.ts";
import { AgentNamespace } from "../../src/agent-namespace.ts";
import { until } from "../harness/fleet.ts";
import { tempDir } from "../harness/agent-test-helpers.ts";

let tmp: ReturnType<typeof tempDir>;
const namespaces: AgentNamespace[] = [];
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  for (const namespace of namespaces.splice(0)) namespace.dispose();
  tmp.cleanup();
});

/** The events file of a run, and a second name for it outside the watched directory. */
function eventsFile(namespace: AgentNamespace, id: number, run: number): { path: string; elsewhere: string } {
  const path = claudeEventsFile(namespace.assetsFor(id, run).captureFile);
  writeFileSync(path, "first\n");
  const elsewhere = join(tmp.root, `outside-${id}-${run}.events`);
  linkSync(path, elsewhere);
  return { path, elsewhere };
}

function watched(): { namespace: AgentNamespace; changes: string[] } {
  const changes: string[] = [];
  const namespace = new AgentNamespace(tmp.root, (id, run) => changes.push(`${id}-${run}`));
  namespaces.push(namespace);
  return { namespace, changes };
}

test("a change the watcher never reports is still reported", async () => {
  const { namespace, changes } = watched();
  const { elsewhere } = eventsFile(namespace, 3, 2);
  await until("the watched write reported", () => changes.includes("3-2"));
  changes.length = 0;
  appendFileSync(elsewhere, "second\n");
  await until("the unwatched write reported", () => changes.includes("3-2"), 10_000);
});

test("a file that did not change is not reported again", async () => {
  const { namespace, changes } = watched();
  eventsFile(namespace, 1, 1);
  const { elsewhere } = eventsFile(namespace, 2, 1);
  await until("both writes reported", () => changes.includes("1-1") && changes.includes("2-1"));
  changes.length = 0;
  appendFileSync(elsewhere, "second\n");
  await until("task 2's unwatched write reported", () => changes.includes("2-1"), 10_000);
  expect(changes).not.toContain("1-1");
});
