/**
 * CairnError: the one error type services throw. It travels as a gRPC status (code + message, with the
 * optional reason in the `cairn-reason` trailer) and becomes an HTTP status at the gateway through the
 * single table below. `cause` is for logs only and never leaves the process.
 */

/** gRPC status codes (same numbers as @grpc/grpc-js `status`). */
export enum Code {
  OK = 0,
  CANCELLED = 1,
  UNKNOWN = 2,
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  PERMISSION_DENIED = 7,
  RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9,
  ABORTED = 10,
  OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
  UNAVAILABLE = 14,
  DATA_LOSS = 15,
  UNAUTHENTICATED = 16,
}

export interface CairnErrorOptions {
  /** Machine-readable detail where the code is not enough (e.g. "email_taken"); sent to callers. */
  reason?: string;
  /** The underlying error; logged, never sent. */
  cause?: unknown;
  /** Whole seconds after which the same call may succeed (a throttled or busy caller); sent to callers. */
  retryAfterSeconds?: number;
}

export class CairnError extends Error {
  readonly code: Code;
  readonly reason: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: Code, message: string, options: CairnErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CairnError';
    this.code = code;
    this.reason = options.reason;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  static notFound(message = 'not found', options?: CairnErrorOptions): CairnError {
    return new CairnError(Code.NOT_FOUND, message, options);
  }
  static invalid(message: string, options?: CairnErrorOptions): CairnError {
    return new CairnError(Code.INVALID_ARGUMENT, message, options);
  }
  static exists(message: string, options?: CairnErrorOptions): CairnError {
    return new CairnError(Code.ALREADY_EXISTS, message, options);
  }
  static denied(message: string, options?: CairnErrorOptions): CairnError {
    return new CairnError(Code.PERMISSION_DENIED, message, options);
  }
  static unauthenticated(message: string, options?: CairnErrorOptions): CairnError {
    return new CairnError(Code.UNAUTHENTICATED, message, options);
  }
  static precondition(message: string, options?: CairnErrorOptions): CairnError {
    return new CairnError(Code.FAILED_PRECONDITION, message, options);
  }
  static unavailable(message: string, options?: CairnErrorOptions): CairnError {
    return new CairnError(Code.UNAVAILABLE, message, options);
  }
  static internal(message: string, options?: CairnErrorOptions): CairnError {
    return new CairnError(Code.INTERNAL, message, options);
  }
}

export function isCairnError(e: unknown): e is CairnError {
  return e instanceof CairnError;
}

/**
 * gRPC code → HTTP status, the one table. A gateway route whose Gitea counterpart answers differently
 * (e.g. 400 instead of 422 for a bad token scope) passes an override to `httpStatusOf`.
 */
export const HTTP_STATUS_BY_CODE: Readonly<Record<Code, number>> = {
  [Code.OK]: 200,
  [Code.CANCELLED]: 499,
  [Code.UNKNOWN]: 500,
  [Code.INVALID_ARGUMENT]: 422,
  [Code.DEADLINE_EXCEEDED]: 503,
  [Code.NOT_FOUND]: 404,
  [Code.ALREADY_EXISTS]: 409,
  [Code.PERMISSION_DENIED]: 403,
  [Code.RESOURCE_EXHAUSTED]: 429,
  [Code.FAILED_PRECONDITION]: 422,
  [Code.ABORTED]: 409,
  [Code.OUT_OF_RANGE]: 400,
  [Code.UNIMPLEMENTED]: 501,
  [Code.INTERNAL]: 500,
  [Code.UNAVAILABLE]: 503,
  [Code.DATA_LOSS]: 500,
  [Code.UNAUTHENTICATED]: 401,
};

export type HttpStatusOverrides = Partial<Record<Code, number>>;

export function httpStatusOf(error: CairnError, overrides: HttpStatusOverrides = {}): number {
  return overrides[error.code] ?? HTTP_STATUS_BY_CODE[error.code] ?? 500;
}
