/**
 * The circuit breaker every client call goes through (opossum). Only transport-level failures count
 * against the circuit: a NOT_FOUND is a healthy answer and must never cut a caller off from a service.
 */
import CircuitBreaker from 'opossum';
import type { Logger } from '@cairn/log';
import { BreakerState, trackBreaker } from '@cairn/metrics';
import { CairnError, Code, isCairnError } from './errors';
import type { BreakerOptions } from './types';

/** Codes that say the service (or the way to it) is unhealthy; everything else is an answer. */
export const BREAKER_FAILURE_CODES: ReadonlySet<Code> = new Set([
  Code.UNAVAILABLE,
  Code.DEADLINE_EXCEEDED,
  Code.INTERNAL,
  Code.UNKNOWN,
  Code.RESOURCE_EXHAUSTED,
]);

/**
 * Whether a call's error counts against the circuit. Anything that is not a CairnError (opossum's own timeout) does.
 * A refusal that says when to retry (a throttled sign-in, a full password-check queue) is a healthy service's
 * deliberate answer: counting it would let a flood of bad sign-ins cut every caller off from that service.
 */
export function countsAsFailure(error: unknown): boolean {
  if (!isCairnError(error)) return true;
  return error.retryAfterSeconds === undefined && BREAKER_FAILURE_CODES.has(error.code);
}

/**
 * The breaker of one client. Its state changes are logged and shown as `cairn_rpc_client_breaker_state`
 * under `metricsLabel` until the breaker is shut down.
 */
export function createBreaker<TI extends unknown[], TR>(
  action: (...args: TI) => Promise<TR>,
  options: { service: string; target: string; logger: Logger; settings?: BreakerOptions; metricsLabel: string },
): CircuitBreaker<TI, TR> {
  const settings = options.settings ?? {};
  const breaker = new CircuitBreaker(action, {
    name: options.service,
    timeout: settings.timeoutMs ?? false,
    errorThresholdPercentage: settings.errorThresholdPercentage ?? 50,
    resetTimeout: settings.resetTimeoutMs ?? 5000,
    volumeThreshold: settings.volumeThreshold ?? 5,
    rollingCountTimeout: settings.rollingWindowMs ?? 10_000,
    // errorFilter returning true means "not a failure".
    errorFilter: (error: unknown) => !countsAsFailure(error),
  });
  const fields = { service: options.service, target: options.target };
  const state = trackBreaker(options.metricsLabel);
  breaker.on('open', () => {
    state.set(BreakerState.open);
    options.logger.warn(fields, 'circuit opened');
  });
  breaker.on('halfOpen', () => {
    state.set(BreakerState.halfOpen);
    options.logger.info(fields, 'circuit half-open');
  });
  breaker.on('close', () => {
    state.set(BreakerState.closed);
    options.logger.info(fields, 'circuit closed');
  });
  breaker.on('shutdown', () => state.release());
  return breaker;
}

/** opossum's own rejections (open circuit, its timeout, shut down) → CairnError; undefined for any other error. */
export function breakerRejection(error: unknown, service: string): CairnError | undefined {
  if (!(error instanceof Error) || !CircuitBreaker.isOurError(error)) return undefined;
  const code = (error as Error & { code?: unknown }).code;
  switch (code) {
    case 'EOPENBREAKER':
      return new CairnError(Code.UNAVAILABLE, `${service} is unavailable (circuit open)`, { cause: error });
    case 'ETIMEDOUT':
      return new CairnError(Code.DEADLINE_EXCEEDED, `${service} did not answer in time`, { cause: error });
    case 'ESHUTDOWN':
      return new CairnError(Code.UNAVAILABLE, `${service} client is closed`, { cause: error });
    default:
      return new CairnError(Code.UNAVAILABLE, `${service} is unavailable`, { cause: error });
  }
}
