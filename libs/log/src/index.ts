/**
 * Logging for every process: pino JSON lines with snake_case keys, and the request id that follows a
 * request from the gateway through every gRPC call (AsyncLocalStorage here, `x-request-id` on the wire).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Header (HTTP) and metadata key (gRPC) that carries the request id. */
export const REQUEST_ID_HEADER = 'x-request-id';

export interface LoggerOptions {
  /** Service name, written as `service` on every line. */
  service: string;
  /** pino level; default info. */
  level?: string;
  /** Where lines go; default stdout. */
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // The request id of the surrounding request lands on every line without being passed around.
      mixin: () => {
        const id = currentRequestId();
        return id === undefined ? {} : { request_id: id };
      },
      redact: { paths: ['password', '*.password', 'token', '*.token', 'authorization', '*.authorization'], censor: '[redacted]' },
    },
    options.destination,
  );
}

/** A logger that drops everything (tests, tools). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

export interface RequestContext {
  requestId: string;
  /**
   * The signed statement of who the request acts for, as an edge made it (`@cairn/rpc`'s identity.ts): a service
   * passes it on with every call it makes while handling the request.
   */
  actorAssertion?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

export function currentActorAssertion(): string | undefined {
  return storage.getStore()?.actorAssertion;
}

export function newRequestId(): string {
  return randomUUID();
}

/** Accepts a caller-supplied request id only if it is short and plain, so logs cannot be forged. */
export function sanitizeRequestId(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(value) ? value : undefined;
}
