/**
 * The one mapping from database errors (slonik's classes, raw pg errors, socket errors) to CairnError.
 * Client-facing messages stay generic; the constraint name, when PostgreSQL reports one, becomes the
 * `reason` so a service can tell which rule was hit, and the original error is kept as `cause` for logs.
 */
import { CairnError, Code } from '@cairn/rpc';
import {
  BackendTerminatedError,
  BackendTerminatedUnexpectedlyError,
  CheckExclusionConstraintViolationError,
  CheckIntegrityConstraintViolationError,
  ConnectionError,
  ForeignKeyIntegrityConstraintViolationError,
  IdleTransactionTimeoutError,
  InvalidInputError,
  NotFoundError,
  NotNullIntegrityConstraintViolationError,
  StatementCancelledError,
  StatementTimeoutError,
  TupleMovedToAnotherPartitionError,
  UnexpectedStateError,
  UniqueIntegrityConstraintViolationError,
} from 'slonik';

const MESSAGES = {
  [Code.NOT_FOUND]: 'not found',
  [Code.ALREADY_EXISTS]: 'already exists',
  [Code.FAILED_PRECONDITION]: 'a related record is missing or still in use',
  [Code.INVALID_ARGUMENT]: 'invalid value',
  [Code.UNAVAILABLE]: 'database unavailable',
  [Code.ABORTED]: 'conflicting concurrent update, try again',
  [Code.INTERNAL]: 'internal error',
} as const;

type MappedCode = keyof typeof MESSAGES;

/** Socket-level failures: the server is down, unreachable or dropped us. */
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
]);

/** pg's own connection failures carry no code, only these messages. */
const PG_CONNECTION_MESSAGE = /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout expired)/;

/** slonik turns 22P02 into InvalidInputError without the code, so the server's message is the only mark. */
const PG_INVALID_INPUT_MESSAGE = /^invalid input (syntax|value)/i;

const MAX_CAUSE_DEPTH = 8;

export function toCairnError(error: unknown): CairnError {
  if (error instanceof CairnError) return error;
  const code = codeOf(error);
  return new CairnError(code, MESSAGES[code], { reason: code === Code.INTERNAL ? undefined : constraintOf(error), cause: error });
}

function codeOf(error: unknown): MappedCode {
  return codeFromSlonikClass(error) ?? codeFromSqlState(sqlStateOf(error)) ?? (isNetworkError(error) ? Code.UNAVAILABLE : Code.INTERNAL);
}

function codeFromSlonikClass(error: unknown): MappedCode | undefined {
  if (error instanceof NotFoundError) return Code.NOT_FOUND;
  if (error instanceof UniqueIntegrityConstraintViolationError) return Code.ALREADY_EXISTS;
  if (error instanceof CheckExclusionConstraintViolationError) return Code.ALREADY_EXISTS;
  if (error instanceof ForeignKeyIntegrityConstraintViolationError) return Code.FAILED_PRECONDITION;
  if (error instanceof CheckIntegrityConstraintViolationError) return Code.INVALID_ARGUMENT;
  if (error instanceof NotNullIntegrityConstraintViolationError) return Code.INVALID_ARGUMENT;
  if (
    error instanceof ConnectionError ||
    error instanceof BackendTerminatedError ||
    error instanceof BackendTerminatedUnexpectedlyError ||
    error instanceof StatementTimeoutError ||
    error instanceof StatementCancelledError ||
    error instanceof IdleTransactionTimeoutError
  ) {
    return Code.UNAVAILABLE;
  }
  if (error instanceof TupleMovedToAnotherPartitionError) return Code.ABORTED;
  // slonik also throws InvalidInputError for its own misuse checks (empty query, several statements): bugs.
  if (error instanceof InvalidInputError) return PG_INVALID_INPUT_MESSAGE.test(error.message) ? Code.INVALID_ARGUMENT : Code.INTERNAL;
  // A query after close() during shutdown.
  if (error instanceof UnexpectedStateError && /connection pool/i.test(error.message)) return Code.UNAVAILABLE;
  return undefined;
}

/** https://www.postgresql.org/docs/current/errcodes-appendix.html */
function codeFromSqlState(state: string | undefined): MappedCode | undefined {
  if (state === undefined) return undefined;
  switch (state) {
    case '23505': // unique_violation
    case '23P01': // exclusion_violation
      return Code.ALREADY_EXISTS;
    case '23503': // foreign_key_violation
    case '23001': // restrict_violation
      return Code.FAILED_PRECONDITION;
    case '23514': // check_violation
    case '23502': // not_null_violation
      return Code.INVALID_ARGUMENT;
    case '55P03': // lock_not_available (lock_timeout)
    case '25P03': // idle_in_transaction_session_timeout
      return Code.UNAVAILABLE;
  }
  switch (state.slice(0, 2)) {
    case '22': // data exception: invalid text representation, numeric out of range, value too long…
      return Code.INVALID_ARGUMENT;
    case '40': // transaction rollback: serialization failure, deadlock
      return Code.ABORTED;
    case '08': // connection exception
    case '53': // insufficient resources (too many connections, disk full)
    case '57': // operator intervention: shutdown, statement timeout, cancel
      return Code.UNAVAILABLE;
  }
  return undefined;
}

/** The SQLSTATE of the error or of the first cause that has one (slonik keeps the pg error as cause). */
function sqlStateOf(error: unknown): string | undefined {
  for (const item of causeChain(error)) {
    const code = (item as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !NETWORK_ERROR_CODES.has(code)) return code;
  }
  return undefined;
}

function constraintOf(error: unknown): string | undefined {
  for (const item of causeChain(error)) {
    const constraint = (item as { constraint?: unknown }).constraint;
    if (typeof constraint === 'string' && constraint !== '') return constraint;
  }
  return undefined;
}

function isNetworkError(error: unknown): boolean {
  for (const item of causeChain(error)) {
    const code = (item as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
    if (item instanceof Error && PG_CONNECTION_MESSAGE.test(item.message)) return true;
    // Node's happy-eyeballs connect (several addresses for one host name) fails with an AggregateError.
    if (item instanceof AggregateError && item.errors.some(isNetworkError)) return true;
  }
  return false;
}

function causeChain(error: unknown): object[] {
  const chain: object[] = [];
  let current: unknown = error;
  while (typeof current === 'object' && current !== null && chain.length < MAX_CAUSE_DEPTH && !chain.includes(current)) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}
