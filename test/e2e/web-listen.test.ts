// `web --listen ADDR:PORT`, an address with a port as people write it (issue 40, item 15), listens
// there, on loopback as without one; a port given twice, differently, is a usage error naming both.
import { expect, test } from "bun:test";
import { createServer } from "node:net";
import { eachTestGetsAFleet, type Fleet } from "../harness/fleet.ts";
import { fleetcomArgv } from "../harness/helpers.ts";

let fleet: Fleet;
eachTestGetsAFleet((f) => (fleet = f));

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test("web --listen 127.0.0.1:PORT serves there and says so; web --url --listen 127.0.0.1:PORT names that port", async () => {
  const port = await freePort();
  const web = Bun.spawn(fleetcomArgv(["web", "--listen", `127.0.0.1:${port}`]), { env: fleet.env, cwd: fleet.sandbox.home, stdout: "pipe", stderr: "pipe" });
  try {
    const reader = web.stdout.getReader();
    let printed = "";
    while (!printed.includes("\n")) {
      const chunk = await reader.read();
      if (chunk.done) break;
      printed += new TextDecoder().decode(chunk.value);
    }
    // Not a terminal: where it listens, and no login token (docs/web.md).
    expect(printed).toBe(`listening on http://127.0.0.1:${port}/; fleetcom web --url --port ${port} prints a login URL\n`);
    const answer = await fetch(`http://127.0.0.1:${port}/`);
    expect(answer.status).toBe(200);
    // The port written in --listen is the one the login URL names, as --port would be.
    const url = await fleet.ok(["web", "--url", "--listen", `127.0.0.1:${port}`]);
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/\\?token=\\S+\\n$`));
  } finally {
    web.kill("SIGTERM");
    await web.exited;
  }
});

test("a port in --listen and another in --port, or a port that is none, is a usage error naming it", async () => {
  expect(await fleet.cli(["web", "--listen", "127.0.0.1:8080", "--port", "9000"])).toEqual({
    code: 2,
    stdout: "",
    stderr: "fleetcom: web: --listen 127.0.0.1:8080 and --port 9000 name two ports: give one\n",
  });
  expect((await fleet.cli(["web", "--listen", "127.0.0.1:http"])).stderr).toBe("fleetcom: web: --listen 127.0.0.1:http: 'http' is not a port (1-65535)\n");
  // Off loopback still needs TLS, with or without a port.
  expect((await fleet.cli(["web", "--listen", "0.0.0.0:8080"])).stderr).toContain("web: --listen 0.0.0.0 is off loopback");
});
