import { targetIn, targetOf } from "./client-target.ts";
import { defineCommand } from "./kit-define.ts";
import { attachTo, requireTerminal } from "./ui-attach.ts";
import { attachStatusSetting, chosenDetachKey, DEFAULT_DETACH_KEY } from "./ui-attach-settings.ts";
import { chordSummary } from "./ui-attach-chords.ts";

export default defineCommand({
  facts: { tasks: "first", remote: "transport", plain: true },
  meta: {
    name: "attach",
    description: `Attach this terminal to TASK; without TASK, pick one. Keys: ${chordSummary(DEFAULT_DETACH_KEY.name)}`,
  },
  args: {
    task: { type: "positional", description: "The task to attach to: an id, a name or a unique prefix (without it, pick one)", required: false },
    "detach-key": {
      type: "string",
      valueHint: "KEY",
      description: "Detach with KEY instead of Ctrl-\\ (ctrl-a, ^]…; also FLEETCOM_DETACH_KEY); pressed twice it reaches the task",
    },
  },
  async run(context) {
    const { args } = context;
    // Read first: a bad key is refused before anything is picked or attached.
    const target = targetIn(context);
    const options = { detachKey: await chosenDetachKey(args["detach-key"]), status: attachStatusSetting(), target };
    if (args.task) {
      process.exitCode = await attachTo({ typed: args.task }, options);
      return;
    }
    requireTerminal("attach");
    const { pickTask } = await import("./ui-picker-tasks.ts");
    const picked = await pickTask(target);
    if (picked !== null) process.exitCode = await attachTo({ id: picked.id }, { ...options, target: targetOf(picked.host) });
  },
});
