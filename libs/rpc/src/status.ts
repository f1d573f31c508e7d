/**
 * The one place where CairnError and gRPC statuses turn into each other: the server side turns a thrown
 * error into a status (code, message, `cairn-reason` trailer), the client side turns a status back into a
 * CairnError. Unexpected errors never reach the wire; only their code does.
 */
import * as grpc from '@grpc/grpc-js';
import { CairnError, Code, isCairnError } from './errors';

/** Trailer that carries CairnError.reason. */
export const REASON_TRAILER = 'cairn-reason';
/** Trailer that carries CairnError.retryAfterSeconds (decimal whole seconds). */
export const RETRY_AFTER_TRAILER = 'cairn-retry-after';

/** Message sent for any error that is not a CairnError. */
export const INTERNAL_MESSAGE = 'internal error';

/** Codes that mean the server itself failed (logged at error level). */
const SERVER_FAULT_CODES: ReadonlySet<Code> = new Set([Code.INTERNAL, Code.UNKNOWN, Code.DATA_LOSS]);

export function isServerFault(code: Code): boolean {
  return SERVER_FAULT_CODES.has(code);
}

/** `Code.NOT_FOUND` → `"NOT_FOUND"`, for logs. */
export function codeName(code: Code): string {
  return Code[code] ?? String(code);
}

/** A status to send; Code and grpc-js's `status` are the same numbers under two enum types. */
export function grpcStatus(code: Code, details: string, metadata = new grpc.Metadata()): grpc.StatusObject {
  const number: grpc.status = code.valueOf();
  return { code: number, details, metadata };
}

/** A received status number as a Code (UNKNOWN for a number outside the table). */
export function toCode(number: number): Code {
  return Code[number] === undefined ? Code.UNKNOWN : number;
}

export interface ServerErrorStatus {
  code: Code;
  status: grpc.StatusObject;
  /** What to log with the status: the CairnError's cause, or the unexpected error itself. */
  cause: unknown;
}

/** A handler's thrown error → the status to send. */
export function statusFromError(error: unknown): ServerErrorStatus {
  if (isCairnError(error)) {
    const metadata = new grpc.Metadata();
    if (error.reason !== undefined) metadata.set(REASON_TRAILER, error.reason);
    if (error.retryAfterSeconds !== undefined) metadata.set(RETRY_AFTER_TRAILER, String(error.retryAfterSeconds));
    return { code: error.code, status: grpcStatus(error.code, error.message, metadata), cause: error.cause };
  }
  return { code: Code.INTERNAL, status: grpcStatus(Code.INTERNAL, INTERNAL_MESSAGE), cause: error };
}

/**
 * A failed call's status → CairnError. Transport-level codes get a message naming the service instead of
 * grpc-js's text (which holds addresses and timings); the original error stays as `cause` for logs.
 */
export function errorFromStatus(error: Partial<grpc.StatusObject> & { code: number }, service: string): CairnError {
  const reasonValue = error.metadata?.get(REASON_TRAILER)[0];
  const retryValue = error.metadata?.get(RETRY_AFTER_TRAILER)[0];
  const retryAfterSeconds = typeof retryValue === 'string' && /^\d{1,9}$/.test(retryValue) ? Number(retryValue) : undefined;
  const options = { reason: typeof reasonValue === 'string' ? reasonValue : undefined, cause: error, retryAfterSeconds };
  const code = toCode(error.code);
  switch (code) {
    case Code.UNAVAILABLE:
      return new CairnError(code, `${service} is unavailable`, options);
    case Code.DEADLINE_EXCEEDED:
      return new CairnError(code, `${service} did not answer in time`, options);
    default:
      return new CairnError(code, error.details ?? codeName(code), options);
  }
}
