// One error type for things the user can fix: main prints its message as `fleetcom: …` and exits
// with its code, never a stack trace. And the errno code of a failed call, read and put in words once.

export const EXIT = { failure: 1, usage: 2, unreachable: 3, dependencyFailed: 3 } as const;

export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
    this.name = "UserError";
  }
}

export function usageError(message: string): UserError {
  return new UserError(message, EXIT.usage);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The errno code of a failed system call (`ENOENT`), or undefined for an error that carries none. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

// The errno codes people meet from fleetcom's files and directories, in strerror's words.
const ERRNO_WORDS: Record<string, string> = {
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOENT: "no such file or directory",
  ENOTDIR: "not a directory",
  EISDIR: "is a directory",
  ELOOP: "too many levels of symbolic links",
  ENAMETOOLONG: "file name too long",
};

/** What an errno code means, in words, or undefined for a code not listed. */
export function errnoWords(code: string): string | undefined {
  return ERRNO_WORDS[code];
}
