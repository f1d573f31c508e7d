import { ZERO_SHA } from '../git/refs';
import { baselineState, changesFrom, claimedChanges, pushedEventId, stateAfter, unpublishedChanges } from './published-refs';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);

describe('published refs', () => {
  it('starts a ledger from the disk with the change in hand at its old values', () => {
    expect(
      baselineState({ 'refs/heads/main': B, 'refs/heads/new': C, 'refs/tags/v1': A }, [
        { ref: 'refs/heads/main', oldSha: A, newSha: B },
        { ref: 'refs/heads/new', oldSha: ZERO_SHA, newSha: C },
        { ref: 'refs/heads/gone', oldSha: B, newSha: ZERO_SHA },
      ]),
    ).toEqual({ 'refs/heads/main': A, 'refs/heads/gone': B, 'refs/tags/v1': A });
  });

  it('reports updates from the published values, leaving out what is published and refs other than branches and tags', () => {
    const published = { 'refs/heads/main': A, 'refs/heads/dev': B };
    expect(
      changesFrom(published, [
        { ref: 'refs/heads/main', oldSha: C, newSha: B },
        { ref: 'refs/heads/dev', oldSha: A, newSha: B },
        { ref: 'refs/tags/v1', oldSha: ZERO_SHA, newSha: A },
        { ref: 'refs/pull/1/head', oldSha: ZERO_SHA, newSha: A },
      ]),
    ).toEqual([
      { ref: 'refs/heads/main', oldSha: A, newSha: B },
      { ref: 'refs/tags/v1', oldSha: ZERO_SHA, newSha: A },
    ]);
  });

  it('claims only the updates of a push that took effect', () => {
    const published = { 'refs/heads/main': A, 'refs/heads/old': A };
    const current = { 'refs/heads/main': B, 'refs/heads/dev': A };
    expect(
      claimedChanges(published, current, [
        { ref: 'refs/heads/main', oldSha: A, newSha: B },
        { ref: 'refs/heads/dev', oldSha: ZERO_SHA, newSha: C },
        { ref: 'refs/heads/old', oldSha: A, newSha: ZERO_SHA },
      ]),
    ).toEqual([
      { ref: 'refs/heads/main', oldSha: A, newSha: B },
      { ref: 'refs/heads/old', oldSha: A, newSha: ZERO_SHA },
    ]);
  });

  it('finds every branch and tag that differs from the ledger, by name', () => {
    expect(
      unpublishedChanges(
        { 'refs/tags/v1': A, 'refs/heads/main': A, 'refs/heads/same': C },
        { 'refs/heads/main': B, 'refs/heads/same': C, 'refs/heads/new': C, 'refs/pull/1/head': B },
      ),
    ).toEqual([
      { ref: 'refs/heads/main', oldSha: A, newSha: B },
      { ref: 'refs/heads/new', oldSha: ZERO_SHA, newSha: C },
      { ref: 'refs/tags/v1', oldSha: A, newSha: ZERO_SHA },
    ]);
  });

  it('moves the ledger past a change', () => {
    expect(
      stateAfter({ 'refs/heads/main': A, 'refs/tags/v1': A }, [
        { ref: 'refs/heads/main', oldSha: A, newSha: B },
        { ref: 'refs/tags/v1', oldSha: A, newSha: ZERO_SHA },
        { ref: 'refs/heads/dev', oldSha: ZERO_SHA, newSha: C },
      ]),
    ).toEqual({ 'refs/heads/main': B, 'refs/heads/dev': C });
  });

  it('derives the event id from repository, sequence number and change', () => {
    const change = [{ ref: 'refs/heads/main', oldSha: A, newSha: B }];
    const id = pushedEventId(1, 1, change);
    expect(pushedEventId(1, 1, [{ ...change[0] }])).toBe(id);
    // The same move again later (main back and forth) is a new event; so is another repository's.
    expect(pushedEventId(1, 3, change)).not.toBe(id);
    expect(pushedEventId(2, 1, change)).not.toBe(id);
    expect(pushedEventId(1, 1, [{ ref: 'refs/heads/main', oldSha: A, newSha: C }])).not.toBe(id);
  });
});
