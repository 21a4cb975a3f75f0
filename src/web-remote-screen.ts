// Another host's screen as this machine's daemon would have sent it: the bytes a remote daemon (or
// whatever answers in its place over ssh) says are a task's screen are drawn into a headless terminal
// here and serialized again (term-screen.ts), so the page gets cells, SGR and modes only, never an
// OSC 8 link, a title, a clipboard write or a query, whatever the host sent.
import { Screen } from "./term-screen.ts";

/** The largest side drawn: the wire's own bound on a terminal's size, whatever size the host claims. */
const MAX_SIDE = 1000;

const side = (n: number) => Math.max(1, Math.min(MAX_SIDE, Math.floor(n) || 1));

/** `bytes`, a whole screen of a terminal `cols` × `rows`, as the bytes that draw the same cells and nothing else. */
export function refilteredScreen(bytes: Uint8Array, cols: number, rows: number): { data: string; cols: number; rows: number } {
  const size = { cols: side(cols), rows: side(rows) };
  const screen = new Screen({ ...size, scrollback: 0 });
  try {
    screen.write(bytes);
    return { data: screen.serializeForAttach(), ...size };
  } finally {
    screen.dispose();
  }
}
