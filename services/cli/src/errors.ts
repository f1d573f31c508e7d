/** Failures of a well-formed command (the operation itself failed): exit code 1. Usage errors are in args.ts. */
export class CommandFailedError extends Error {
  override name = 'CommandFailedError';
}

export const EXIT_OK = 0;
/** The operation failed: the user exists, a value is invalid, the database is unreachable … */
export const EXIT_FAILED = 1;
/** The command line or the configuration is wrong. */
export const EXIT_USAGE = 2;
