// One error type for things the user can fix: main prints its message as `fleetcom: …` and exits
// with its code, never a stack trace.

export const EXIT = { failure: 1, usage: 2, unreachable: 3 } as const;

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
