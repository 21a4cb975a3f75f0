// What is at a path, asked the forgiving way: anything unreadable or missing is simply not there.
import { statSync } from "node:fs";

/** Whether a directory is there (following links). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
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
