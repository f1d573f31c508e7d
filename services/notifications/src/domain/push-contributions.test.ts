import type { RefUpdate } from '@cairn/proto/cairn/git/v1/events';
import { pushContributions, refContributions } from './push-contributions';

const ZERO = '0'.repeat(40);
const ZERO_256 = '0'.repeat(64);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const ref = (name: string, oldSha: string, newSha: string): RefUpdate => ({ ref: name, oldSha, newSha });

describe('refContributions (one per action Gitea records for the pusher)', () => {
  it.each<[string, RefUpdate, number]>([
    ['a branch updated', ref('refs/heads/main', A, B), 1],
    ['a branch force-pushed', ref('refs/heads/main', B, A), 1],
    ['a branch created (CreateRef + PushCommits)', ref('refs/heads/feature', ZERO, A), 2],
    ['a branch created in a SHA-256 repository', ref('refs/heads/feature', ZERO_256, 'c'.repeat(64)), 2],
    ['a branch deleted', ref('refs/heads/feature', A, ZERO), 1],
    ['a tag created', ref('refs/tags/v1.0', ZERO, A), 1],
    ['a tag moved', ref('refs/tags/v1.0', A, B), 1],
    ['a tag deleted', ref('refs/tags/v1.0', A, ZERO), 1],
    ['a pull-request head', ref('refs/pull/3/head', A, B), 0],
    ['a note', ref('refs/notes/commits', ZERO, A), 0],
    ['a name that only starts like a branch', ref('refs/headsup', A, B), 0],
    ['neither old nor new object', ref('refs/heads/main', ZERO, ZERO), 0],
    ['empty ids', ref('refs/heads/main', '', ''), 0],
  ])('%s counts %d', (_what, update, expected) => {
    expect(refContributions(update)).toBe(expected);
  });
});

describe('pushContributions', () => {
  it('adds the contributions of every reference of the push', () => {
    expect(
      pushContributions([ref('refs/heads/main', A, B), ref('refs/heads/new', ZERO, B), ref('refs/tags/v2', ZERO, B), ref('refs/pull/1/head', A, B)]),
    ).toBe(4);
  });

  it('is 0 for a push with no reference', () => {
    expect(pushContributions([])).toBe(0);
  });
});
