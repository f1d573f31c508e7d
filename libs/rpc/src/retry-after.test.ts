import { countsAsFailure } from './breaker';
import { CairnError, Code } from './errors';
import { RETRY_AFTER_TRAILER, errorFromStatus, statusFromError } from './status';

describe('retryAfterSeconds', () => {
  it('travels in the cairn-retry-after trailer with the code, message and reason', () => {
    const sent = new CairnError(Code.RESOURCE_EXHAUSTED, 'slow down', { reason: 'sign_in_throttled', retryAfterSeconds: 42 });
    const { status } = statusFromError(sent);
    expect(status.metadata.get(RETRY_AFTER_TRAILER)).toEqual(['42']);
    const received = errorFromStatus(status, 'accounts');
    expect(received).toMatchObject({ code: Code.RESOURCE_EXHAUSTED, message: 'slow down', reason: 'sign_in_throttled', retryAfterSeconds: 42 });
  });

  it('is undefined when not sent or not a whole number of seconds', () => {
    expect(errorFromStatus(statusFromError(CairnError.notFound()).status, 'accounts').retryAfterSeconds).toBeUndefined();
    const { status } = statusFromError(new CairnError(Code.RESOURCE_EXHAUSTED, 'busy'));
    status.metadata.set(RETRY_AFTER_TRAILER, '1.5');
    expect(errorFromStatus(status, 'accounts').retryAfterSeconds).toBeUndefined();
  });

  it('keeps a refusal that says when to retry from counting against the circuit breaker', () => {
    expect(countsAsFailure(new CairnError(Code.RESOURCE_EXHAUSTED, 'busy'))).toBe(true);
    expect(countsAsFailure(new CairnError(Code.RESOURCE_EXHAUSTED, 'slow down', { retryAfterSeconds: 1 }))).toBe(false);
    expect(countsAsFailure(CairnError.unavailable('down'))).toBe(true);
    expect(countsAsFailure(CairnError.notFound())).toBe(false);
  });
});
