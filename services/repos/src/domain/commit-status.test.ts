import { Code } from '@cairn/rpc';
import { assertFullSha, combineStates, contextHash, newStatusFields, parseCommitStatusState, stateFilter, statusOrder } from './commit-status';

describe('combineStates', () => {
  it.each([
    [[], 'pending'],
    [['success'], 'success'],
    [['success', 'skipped'], 'success'],
    [['skipped'], 'success'],
    [['success', 'pending'], 'pending'],
    [['pending'], 'pending'],
    [['success', 'warning'], 'failure'],
    [['pending', 'error'], 'failure'],
    [['success', 'failure', 'pending'], 'failure'],
  ] as const)('%j → %s', (states, combined) => {
    expect(combineStates(states)).toBe(combined);
  });
});

describe('parseCommitStatusState', () => {
  it('accepts the six states', () => {
    for (const state of ['pending', 'success', 'error', 'failure', 'warning', 'skipped']) expect(parseCommitStatusState(state)).toBe(state);
  });

  it.each(['', 'SUCCESS', 'running', 'ok'])('refuses %j', (state) => {
    expect(() => parseCommitStatusState(state)).toThrow(expect.objectContaining({ code: Code.INVALID_ARGUMENT, reason: 'status_state_invalid' }));
  });
});

describe('stateFilter', () => {
  it('filters by a known state and ignores anything else', () => {
    expect(stateFilter('failure')).toBe('failure');
    expect(stateFilter('')).toBeUndefined();
    expect(stateFilter('bogus')).toBeUndefined();
  });
});

describe('statusOrder', () => {
  it.each([
    ['', 'created', true],
    ['unknown', 'created', true],
    ['oldest', 'created', false],
    ['recentupdate', 'updated', true],
    ['leastupdate', 'updated', false],
    ['leastindex', 'index', true],
    ['highestindex', 'index', false],
  ] as const)('%j sorts by %s (descending: %s)', (sort, column, descending) => {
    expect(statusOrder(sort)).toEqual({ column, descending });
  });
});

describe('contextHash', () => {
  it('is the SHA-1 of the context', () => {
    expect(contextHash('')).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709');
    expect(contextHash('ci/build')).not.toBe(contextHash('ci/test'));
  });
});

describe('assertFullSha', () => {
  it('accepts SHA-1 and SHA-256 ids', () => {
    expect(() => assertFullSha('a'.repeat(40))).not.toThrow();
    expect(() => assertFullSha('0123456789abcdef'.repeat(4))).not.toThrow();
  });

  it.each(['', 'abc1234', 'A'.repeat(40), 'g'.repeat(40), 'main'])('refuses %j', (sha) => {
    expect(() => assertFullSha(sha)).toThrow(expect.objectContaining({ reason: 'sha_invalid' }));
  });
});

describe('newStatusFields', () => {
  it('trims the text fields', () => {
    expect(newStatusFields({ state: 'success', targetUrl: ' https://ci/1 ', description: ' ok ', context: ' ci ' })).toEqual({
      state: 'success',
      targetUrl: 'https://ci/1',
      description: 'ok',
      context: 'ci',
    });
  });
});
