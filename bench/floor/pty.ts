// The floor under a detached flood: a Bun program, compiled like fleetcom, that runs one command in a
// PTY the way the daemon does (Bun.spawn with an inline terminal of the benchmark's size, through the
// user's shell) and drops everything it prints: no screen, no log, no socket. bench/throughput.ts
// times it beside `fleetcom run` and `tmux new-session -d`; what fleetcom takes over it is what its
// daemon does with the output (the screen's backlog, the log, the events).
//
//   pty COMMAND   exits once COMMAND has exited and been reaped
const [command] = process.argv.slice(2);
const shell = process.env.SHELL || "/bin/sh";
const task = Bun.spawn([shell, "-c", command!], { terminal: { cols: 120, rows: 40, data() {} } });
void task.exited.then((code) => {
  process.exitCode = code;
});
