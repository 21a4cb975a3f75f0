// Following a daemon that is starting (client-autostart-follow.ts): the wait between attempts.
import { expect, spyOn, test } from "bun:test";
import { nextAttempt } from "../../src/client-autostart-follow.ts";

test("an autostart's wait that ends on the daemon's word leaves no timer behind to hold the command open", async () => {
  // A pending pause kept a cold `ls` alive after it printed, until the pause ran out.
  const scheduled = spyOn(globalThis, "setTimeout");
  const cleared = spyOn(globalThis, "clearTimeout");
  try {
    await nextAttempt({ listening: Promise.resolve() });
    expect(scheduled).toHaveBeenCalledTimes(1);
    expect(cleared).toHaveBeenCalledWith(scheduled.mock.results[0]!.value);
  } finally {
    scheduled.mockRestore();
    cleared.mockRestore();
  }
});
