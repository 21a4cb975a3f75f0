// Task ids. INVARIANT: the counter stays above every id ever handed out, so a fresh id never names a
// task that exists or existed in this daemon. A recovered task keeps the id it had before the crash
// (an id kept in a script or typed from memory must still reach that task, as pm2's ids and
// tmux-resurrect's window indexes survive a restore); only an id already in use is replaced. Pure: the
// daemon says which ids are in use.

export class TaskIds {
  private next = 1;

  /**
   * Lifts the counter above every id a load brings before any of its tasks starts, so that a fresh
   * id given to one entry (its own id taken) never takes the id a later entry of the load recorded,
   * nor one a `run` arriving meanwhile gets.
   */
  reserve(recorded: Iterable<number | undefined>): void {
    for (const id of recorded) if (id !== undefined) this.next = Math.max(this.next, id + 1);
  }

  /** `wanted` when it is given and free, else the next fresh id. */
  assign(wanted: number | undefined, inUse: (id: number) => boolean): number {
    if (wanted === undefined || inUse(wanted)) return this.next++;
    this.next = Math.max(this.next, wanted + 1);
    return wanted;
  }
}
