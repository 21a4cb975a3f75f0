// Records what a real daemon tells a subscribed client over a short session, for the fleet model's
// unit test (test/unit/client-fleet.test.ts): `FLEETCOM_TEST_BIN=dist/fleetcom bun
// test/harness/record-fleet-events.ts > test/harness/fixtures/fleet-events.json`. The session: task
// `api` runs before the subscription; `tests` starts, prints, exits; `api` is killed and removed.
import { Fleet, until } from "./fleet.ts";
import { RawClient } from "./raw-client.ts";

const fleet = new Fleet();
try {
  const api = await fleet.run("sleep 3600", ["--name", "api"]);
  const client = await RawClient.open(fleet);
  const subscribed = await client.request("subscribe");
  const tests = await fleet.run("printf 'PASS 12 tests\\n'; sleep 1", ["--name", "tests"]);
  const events = () => client.messages.filter((m) => m.type === "event");
  await until("tests exited", () => events().some((e) => e.event === "exited" && e.task.id === tests));
  await fleet.ok(["kill", String(api)]);
  await until("api exited", () => events().some((e) => e.event === "exited" && e.task.id === api));
  await fleet.ok(["rm", String(api)]);
  await until("api removed", () => events().some((e) => e.event === "removed" && e.task.id === api));
  process.stdout.write(`${JSON.stringify({ subscribe: subscribed.result, events: events() }, null, 1)}\n`);
  client.socket.destroy();
} finally {
  await fleet.stop();
}
