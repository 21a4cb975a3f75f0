import { describe, expect, test } from "bun:test";
import { runFleetcom } from "../harness/helpers.ts";

describe("the command line", () => {
  test("--version and -V print the version and exit 0", async () => {
    for (const flag of ["--version", "-V"]) {
      const r = await runFleetcom([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    }
  });

  test("an unknown command is a usage error on one line", async () => {
    const r = await runFleetcom(["no-such-command"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("fleetcom: unknown command 'no-such-command'");
  });

  test("--help works at the top and on subcommands", async () => {
    const top = await runFleetcom(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain("sessions");
    const sub = await runFleetcom(["sessions", "-h"]);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain("fleetcom sessions");
  });
});
