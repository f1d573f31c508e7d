import { CairnError, Code } from '@cairn/rpc';
import { MAX_ATTEMPTS, classifyFailure } from './failure';

describe('classifyFailure', () => {
  it("answers Gitea's messages for refused credentials and git's failures", () => {
    expect(classifyFailure(CairnError.precondition('remote refused the credentials', { reason: 'auth_failed' }), 1)).toEqual({
      kind: 'failed',
      reason: 'auth_failed',
      message: 'Authentication failed: remote refused the credentials.',
    });
    expect(classifyFailure(CairnError.precondition('fatal: repository not found', { reason: 'fetch_failed' }), 1)).toEqual({
      kind: 'failed',
      reason: 'migration_failed',
      message: 'Migration failed: fatal: repository not found.',
    });
  });

  it('tries a passing failure again until the attempts run out', () => {
    expect(classifyFailure(new CairnError(Code.UNAVAILABLE, 'git-storage is unavailable'), 1).kind).toBe('retry');
    expect(classifyFailure(new CairnError(Code.UNAVAILABLE, 'git-storage is unavailable'), MAX_ATTEMPTS)).toMatchObject({ kind: 'failed', reason: 'migration_failed' });
    // A missed deadline (an import RPC held by a lock, a slow fetch) is tried again too, within the attempts.
    expect(classifyFailure(new CairnError(Code.DEADLINE_EXCEEDED, 'issues did not answer in time'), 1).kind).toBe('retry');
    expect(classifyFailure(new CairnError(Code.DEADLINE_EXCEEDED, 'issues did not answer in time'), MAX_ATTEMPTS).kind).toBe('failed');
  });
});
