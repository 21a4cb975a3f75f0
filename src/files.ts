// What is at a path (or behind an open fd), asked the forgiving way: anything unreadable or missing is simply not there. A
// path may carry a non-UTF-8 name as raw bytes (text-path.ts): it is asked for by those bytes.
import { fstatSync, statSync } from "node:fs";
import { pathBytes } from "./text-path.ts";

/** Whether a directory is there (following links). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(pathBytes(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Whether a regular file is there (following links). */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Whether anything is there (following links). */
export function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether an open fd is a character device: only one can be a terminal (cheaper than asking process.stdout). */
export function isCharacterDevice(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}
