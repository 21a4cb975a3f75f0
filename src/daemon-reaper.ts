// A task's processes end with its daemon, whatever signals they ignore. When the daemon dies its
// PTYs hang up and most programs end on SIGHUP; one that ignores SIGHUP, SIGTERM and SIGINT (Gemini's
// launcher, and the CLI it relaunches as its child) would run on, orphaned, and a recovery would
// start its conversation a second time. So the daemon keeps a watcher: /bin/sh in a session of its
// own, reading a pipe only the daemon writes. The daemon tells it each task's process group as the
// run starts (the leader's PID and start time) and forgets it once the leader is reaped. When the
// pipe closes, the daemon is gone, however it died: the watcher SIGKILLs each group it was told of,
// only while /proc proves the group is still the task's (daemon-process-group.ts): the process with
// the leader's PID has the recorded start time, or, the leader gone, a live member of the task's
// session started no earlier than the leader. Then it exits.
// Linux only (/proc); elsewhere no watcher runs, and a task that ignores SIGHUP outlives the daemon
// (docs/daemon.md).
import { hasProc, readProcStat } from "./proc.ts";
import { type FedChild, spawnFed } from "./platform.ts";

/**
 * The watcher's program. `+ PGID START` learns a group, `- PGID` forgets it; at the end of its
 * input it kills, and as soon as the daemon named in FLEETCOM_REAPER_DAEMON (its PID and start time)
 * is gone, polled every second: the pipe's end alone was seen to come late on a loaded machine. Fields of /proc/PID/stat after the command's closing parenthesis: 1 state,
 * 3 process group, 4 session, 20 start time.
 */
export const REAPER_SCRIPT = `
stat_of() { { read -r s < "/proc/$1/stat"; } 2>/dev/null || return 1; echo "\${s##*) }"; }
started() { line=$(stat_of "$1") || return 1; set -- $line; [ "$1" != Z ] && echo "\${20}"; }
trap : USR1
poller=
if [ -n "$FLEETCOM_REAPER_DAEMON" ]; then
  set -- $FLEETCOM_REAPER_DAEMON
  me=$(started $$)
  ( while [ "$(started "$1")" = "$2" ]; do sleep 1; done
    [ "$(started $$)" = "$me" ] && kill -s USR1 $$ ) &
  poller=$!
fi
groups=
while read -r op pgid start; do
  case $op in
    +) groups="$groups $pgid:$start" ;;
    -) kept=; for g in $groups; do [ "\${g%%:*}" = "$pgid" ] || kept="$kept $g"; done; groups=$kept ;;
  esac
done
[ -n "$poller" ] && kill "$poller" 2>/dev/null
proven() {
  if line=$(stat_of "$1"); then set -- "$2" $line; [ "\${21}" = "$1" ]; return; fi
  for p in /proc/[0-9]*; do
    line=$(stat_of "\${p#/proc/}") || continue
    set -- "$1" "$2" $line
    [ "$3" != Z ] && [ "$5" = "$1" ] && [ "$6" = "$1" ] && [ "\${22}" -ge "$2" ] && return 0
  done
  return 1
}
for g in $groups; do
  proven "\${g%%:*}" "\${g#*:}" && kill -s KILL -- "-\${g%%:*}" 2>/dev/null
done
exit 0
`;

let reaper: FedChild | null | undefined;
/** The groups the watcher holds, by group id: told again to a watcher started after one ended. */
const watched = new Map<number, number>();

/** The watcher, started with the first task; null where it cannot run or could not start. */
function watcher(log: (message: string) => void): FedChild | null {
  if (reaper !== undefined) return reaper;
  reaper = null;
  if (!hasProc()) return null;
  // The program goes in the environment, so `ps` shows a name rather than the script.
  const child = spawnFed(["/bin/sh", "-c", 'eval "$FLEETCOM_REAPER"', "fleetcom-task-reaper"], {
    PATH: "/usr/bin:/bin",
    LC_ALL: "C",
    FLEETCOM_REAPER: REAPER_SCRIPT,
    FLEETCOM_REAPER_DAEMON: daemonIdentity(),
  });
  // A watcher that ended (killed by hand) while the daemon lives is replaced at the next task.
  void child.ended.then((end) => {
    if ("notRun" in end) log(`task reaper could not start: ${end.notRun}`);
    if (reaper === child) reaper = undefined;
  });
  reaper = child;
  for (const [pgid, start] of watched) child.write(`+ ${pgid} ${start}\n`);
  return reaper;
}

/** This daemon as the watcher checks it: its PID and start time, "" where /proc cannot tell. */
function daemonIdentity(): string {
  const start = readProcStat(process.pid)?.start;
  return start === undefined ? "" : `${process.pid} ${start}`;
}

/** A task's process group, from its leader's PID and start time: the watcher ends it if the daemon dies. */
export function watchGroup(pgid: number, leaderStart: number | null, log: (message: string) => void): void {
  if (leaderStart === null) return;
  const child = watcher(log);
  watched.set(pgid, leaderStart);
  child?.write(`+ ${pgid} ${leaderStart}\n`);
}

/** The group's leader was reaped: its number proves nothing from now on. */
export function forgetGroup(pgid: number): void {
  if (!watched.delete(pgid)) return;
  reaper?.write(`- ${pgid}\n`);
}
