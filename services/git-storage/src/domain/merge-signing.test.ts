import type { MergeSigningRule } from '@cairn/config';
import { type MergeSigningFacts, mergeSigningRefusal } from './merge-signing';

/** Facts that all hold, counting the checks asked for. */
function facts(overrides: Partial<Record<'key' | 'base' | 'head' | 'commits', boolean>> & { approved?: boolean } = {}) {
  const asked: string[] = [];
  const check = (name: 'key' | 'base' | 'head' | 'commits') => async () => {
    asked.push(name);
    return overrides[name] ?? true;
  };
  const value: MergeSigningFacts = {
    mergerHasGpgKey: check('key'),
    approved: overrides.approved ?? true,
    baseVerified: check('base'),
    headVerified: check('head'),
    commitsVerified: check('commits'),
  };
  return { value, asked };
}

const refusal = (rules: MergeSigningRule[], given = facts()) => mergeSigningRefusal(rules, given.value);

describe('mergeSigningRefusal (Gitea SignMerge)', () => {
  it('accepts when every rule holds and refuses at the first that does not, asking nothing after it', async () => {
    expect(await refusal(['pubkey', 'approved', 'basesigned', 'headsigned', 'commitssigned'])).toBeUndefined();
    const given = facts({ key: false });
    expect(await refusal(['pubkey', 'basesigned'], given)).toBe('pubkey');
    expect(given.asked).toEqual(['key']);
    expect(await refusal(['approved'], facts({ approved: false }))).toBe('approved');
    expect(await refusal(['basesigned'], facts({ base: false }))).toBe('basesigned');
    expect(await refusal(['headsigned'], facts({ head: false }))).toBe('headsigned');
  });

  it('"commitssigned" checks the head, then the range', async () => {
    expect(await refusal(['commitssigned'], facts({ head: false }))).toBe('commitssigned');
    const given = facts({ commits: false });
    expect(await refusal(['commitssigned'], given)).toBe('commitssigned');
    expect(given.asked).toEqual(['head', 'commits']);
  });

  it('"never" and "twofa" refuse, "always" accepts whatever follows', async () => {
    expect(await refusal(['never'])).toBe('never');
    expect(await refusal(['twofa'])).toBe('twofa');
    expect(await refusal(['always', 'never'])).toBeUndefined();
    expect(await refusal([])).toBeUndefined();
  });
});
