import { defineCommand } from "citty";
import { UserError } from "./errors.ts";

export default defineCommand({
  meta: { name: "load", description: "Start the processes of a saved session or recipe file" },
  args: { target: { type: "positional", required: false, description: "Session name or FILE.json" } },
  run() {
    throw new UserError("load: not yet implemented");
  },
});
