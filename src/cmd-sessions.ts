import { defineCommand } from "citty";
import { UserError } from "./errors.ts";

export default defineCommand({
  meta: { name: "sessions", description: "List saved sessions" },
  args: { json: { type: "boolean", description: "Print JSON" } },
  run() {
    throw new UserError("sessions: not yet implemented");
  },
});
