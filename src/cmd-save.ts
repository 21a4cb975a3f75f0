// `fleetcom save NAME`: the live fleet's recipe, written as session NAME. The daemon gives the recipe
// (with agent resume forms once captured); directories are tilded with this client's HOME, the same
// HOME a later load expands them with. With hosts added, their fleets are saved too under
// host-qualified keys; a host that does not answer is named on stderr and left out, and the save of
// the rest succeeds (docs/remote.md).
import { targetIn } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";

export default defineCommand({
  facts: { remote: "there", quick: true, plain: true },
  meta: {
    name: "save",
    description:
      "Save the fleet as session NAME, replacing a session saved under that NAME; refuses an empty fleet, and a NAME whose file holds another name (a/b and a_b share a_b.json)",
  },
  args: { name: { type: "positional", required: true, description: "Session name" } },
  async run(context) {
    const { saveFleet } = await import("./client-recipes.ts");
    console.log(await saveFleet(targetIn(context), context.args.name, (line) => process.stderr.write(`fleetcom: ${line}\n`)));
  },
});
