import { tagRefusal } from './tag-rules';

describe('tagRefusal', () => {
  it('lets any tag through without rules, and tags no rule matches', () => {
    expect(tagRefusal([], 'v1')).toBeUndefined();
    expect(tagRefusal([{ namePattern: 'v*', allowed: false }], 'release-1')).toBeUndefined();
  });

  it('refuses a matching tag unless one matching rule allows the pusher', () => {
    expect(tagRefusal([{ namePattern: 'v*', allowed: false }], 'v1')).toBe('Tag v1 is protected');
    expect(tagRefusal([{ namePattern: '/^v[0-9]+$/', allowed: false }], 'v12')).toBe('Tag v12 is protected');
    expect(
      tagRefusal(
        [
          { namePattern: 'v*', allowed: false },
          { namePattern: '/^v1/', allowed: true },
        ],
        'v1.0',
      ),
    ).toBeUndefined();
    // A rule that allows the pusher but does not match the tag does not help.
    expect(
      tagRefusal(
        [
          { namePattern: '*', allowed: false },
          { namePattern: 'x*', allowed: true },
        ],
        'release/v1',
      ),
    ).toBe('Tag release/v1 is protected');
  });
});
