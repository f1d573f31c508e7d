import { Code } from '@cairn/rpc';
import { parseVisibility } from './visibility';

describe('parseVisibility', () => {
  it('reads the three names', () => {
    expect(parseVisibility('public', 'private')).toBe('public');
    expect(parseVisibility('limited', 'public')).toBe('limited');
    expect(parseVisibility('private', 'public')).toBe('private');
  });

  it('uses the fallback for an empty value', () => {
    expect(parseVisibility('', 'limited')).toBe('limited');
  });

  it('rejects anything else', () => {
    expect(() => parseVisibility('Public', 'public')).toThrow(expect.objectContaining({ code: Code.INVALID_ARGUMENT, reason: 'visibility_invalid' }));
    expect(() => parseVisibility('secret', 'public')).toThrow(/invalid visibility/);
  });
});
