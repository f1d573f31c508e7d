import { ZERO_SHA } from '../git/refs';
import { remoteRefUpdates } from './remote-refs';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('remoteRefUpdates', () => {
  const local = { 'refs/heads/main': A, 'refs/heads/gone': A, 'refs/tags/v1': A };
  const remote = { 'refs/heads/main': B, 'refs/heads/new': B, 'refs/tags/v1': A };

  it('creates and moves (forced) what the remote has, and leaves the rest without prune', () => {
    expect(remoteRefUpdates(local, remote, false)).toEqual([
      { ref: 'refs/heads/main', oldSha: A, newSha: B },
      { ref: 'refs/heads/new', oldSha: ZERO_SHA, newSha: B },
    ]);
  });

  it('deletes what the remote no longer has with prune', () => {
    expect(remoteRefUpdates(local, remote, true)).toContainEqual({ ref: 'refs/heads/gone', oldSha: A, newSha: ZERO_SHA });
    expect(remoteRefUpdates(local, remote, true)).toHaveLength(3);
  });

  it('changes nothing when both sides agree', () => {
    expect(remoteRefUpdates(local, local, true)).toEqual([]);
  });
});
