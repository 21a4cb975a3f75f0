// The daemon's one-time notices (a lost previous fleet, config problems) as the lines a client shows:
// on stderr for a command, in the dashboard's header, another host's named and its remedy run there.
import type { RemoteHost } from "./client-ssh.ts";
import { age } from "./text-age.ts";
import { printable } from "./text-printable.ts";
import type { CrashNotice, Notices } from "./wire-protocol.ts";

/** `the previous fleet (5 tasks, autosaved 3m ago) ended unexpectedly — fleetcom recover --latest` */
export function crashNoticeText(notice: CrashNotice, now = Date.now(), remedy = notice.recover): string {
  const tasks = `${notice.tasks} task${notice.tasks === 1 ? "" : "s"}`;
  return `the previous fleet (${tasks}, autosaved ${age(notice.writtenAt, now)} ago) ended unexpectedly — ${remedy}`;
}

/** The notices as lines; another host's name it, and their remedy is run there (`fleetcom --host gpu1 recover --latest`). */
export function noticeLines(notices: Notices, host: RemoteHost | null, now = Date.now()): string[] {
  const remedy = (recover: string) => (host ? recover.replace(/^fleetcom /, `fleetcom --host ${host.name} `) : recover);
  const lines = [...(notices.crash ? [crashNoticeText(notices.crash, now, remedy(notices.crash.recover))] : []), ...notices.config.map((p) => `warning: ${p}`)];
  return lines.map((line) => (host ? `${host.name}: ${line}` : line));
}

export function printNotices(notices: Notices, host: RemoteHost | null): void {
  for (const line of noticeLines(notices, host)) process.stderr.write(`fleetcom: ${printable(line)}\n`);
}
