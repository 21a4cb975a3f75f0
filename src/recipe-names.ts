// Session names and the files they live in (sessions.md, "File names"), with no schema library:
// `fleetcom WORD` asks whether a session of that name exists before anything heavier is loaded.
import { join, resolve } from "node:path";
import { usageError } from "./errors.ts";
import { sessionDir, type Env } from "./paths.ts";

export const STEM_MAX_BYTES = 250;

const UNSAFE_IN_STEM = /[\p{Cc}*"/\\<>:|?.]/gu;

// `.` is replaced too, so a name can never supply another extension (`a.b` → `a_b.json`).
export function sanitizeSessionName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "") throw usageError("a session name cannot be empty");
  return cutToUtf8Bytes(trimmed.toWellFormed().replace(UNSAFE_IN_STEM, "_"), STEM_MAX_BYTES);
}

export function sessionFileName(name: string): string {
  return `${sanitizeSessionName(name)}.json`;
}

function cutToUtf8Bytes(text: string, maxBytes: number): string {
  const encoder = new TextEncoder();
  let bytes = 0;
  let kept = "";
  for (const char of text) {
    bytes += encoder.encode(char).length;
    if (bytes > maxBytes) break;
    kept += char;
  }
  return kept;
}

export function sessionFile(name: string, env: Env = process.env): string {
  return join(sessionDir(env), sessionFileName(name));
}

// `fleetcom load ARG`: an argument ending in `.json` is a file path, anything else a session name.
export function resolveSessionTarget(arg: string, cwd: string, env: Env = process.env): string {
  return arg.endsWith(".json") ? resolve(cwd, arg) : sessionFile(arg, env);
}
