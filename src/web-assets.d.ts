// The browser build of xterm.js and its stylesheet, imported as text (web-page.ts): `bun build
// --compile` embeds them in the binary.
declare module "@xterm/xterm/lib/xterm.js" {
  const text: string;
  export default text;
}
declare module "@xterm/xterm/css/xterm.css" {
  const text: string;
  export default text;
}
