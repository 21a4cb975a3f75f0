// Signalling a task's process group and telling whether anything in it is still alive. Orphaned
// members that already died linger as zombies until init reaps them; they must not count as alive,
// or every kill would wait out the whole grace period.
import { existsSync, readdirSync, readFileSync } from "node:fs";

export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  return existsSync("/proc/self/stat") ? hasLiveMember(pgid) : true;
}

function hasLiveMember(pgid: number): boolean {
  for (const entry of readdirSync("/proc")) {
    if (entry.charCodeAt(0) > 57) continue;
    const fields = statFields(entry);
    if (fields && Number(fields[2]) === pgid && fields[0] !== "Z") return true;
  }
  return false;
}

/** Fields of /proc/<pid>/stat after the command name: state, ppid, pgrp, … */
function statFields(pid: string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}
