// What the dashboard tests share: the keys they type and reading its screen back.
import type { Fleet, PtyClient } from "./fleet.ts";

export const DETACH = "\x1c";
export const ESC = "\x1b";
export const UP = "\x1b[A";
export const DOWN = "\x1b[B";
export const HOME = "\x1b[H";
export const END = "\x1b[F";

export const rows = (screen: string) => screen.split("\n");
/** The dashboard is on screen: its header, and its hint line, which always ends with help. */
export const isDashboard = (s: string) => s.startsWith("fleetcom") && /(\? help|\?:help)$/m.test(s);
export const selectedRow = (screen: string) => rows(screen).find((r) => r.startsWith("›")) ?? "";

/** `fleetcom ARGS…` in a real PTY, once the dashboard is drawn and its terminal raw. */
export async function openDashboard(fleet: Fleet, args: string[] = [], size = { cols: 160, rows: 30 }): Promise<PtyClient> {
  const client = fleet.spawnClient(args, size);
  await client.waitForScreen("the dashboard", isDashboard);
  await client.waitForRawMode();
  return client;
}
