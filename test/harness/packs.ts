// A fresh host costs this machine a packing of the binary (xz: tens of seconds of CPU), and every
// remote test file adds its host from a new HOME, so each would pack again. `make test-slow` gives
// the run one store (FLEETCOM_TEST_PACKS); the files that do not test the packing itself add their
// host through `sharingPack`, which links the store's pack into the sandbox's cache before the add and
// the sandbox's into the store after it. fleetcom checks a kept pack against its record before it
// sends it, and writes a pack only by renaming a new file into place, so a linked pack is never
// changed under another run. A file run alone (no store) packs as a user's first host does.
import { existsSync, linkSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

const STORE = process.env.FLEETCOM_TEST_PACKS;

/** Where fleetcom keeps its packs for the sandbox whose HOME is `home` (Linux's cache directory). */
function packsOf(home: string): string {
  return join(home, ".cache", "fleetcom", "packed");
}

/** Hard-links every kept pack and record under `from` into `to`, version by version; one already there stays. */
function linkPacks(from: string, to: string): void {
  if (!existsSync(from)) return;
  for (const version of readdirSync(from)) {
    mkdirSync(join(to, version), { recursive: true });
    for (const file of readdirSync(join(from, version))) {
      try {
        linkSync(join(from, version, file), join(to, version, file));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    }
  }
}

/** Runs `add` (a `hosts add`) with the run's kept pack in the sandbox's cache, and keeps its pack for the next file. */
export async function sharingPack<T>(home: string, add: () => Promise<T>): Promise<T> {
  if (!STORE) return await add();
  linkPacks(STORE, packsOf(home));
  const added = await add();
  linkPacks(packsOf(home), STORE);
  return added;
}
