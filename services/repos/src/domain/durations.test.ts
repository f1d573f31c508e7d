import { Code } from '@cairn/rpc';
import { formatGoDuration, mirrorInterval } from './durations';

describe('formatGoDuration', () => {
  it.each([
    [0, '0s'],
    [500, '500ms'],
    [1_500, '1.5s'],
    [90_000, '1m30s'],
    [600_000, '10m0s'],
    [8 * 3_600_000, '8h0m0s'],
    [3_600_000 + 500, '1h0m0.5s'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });
});

describe('mirrorInterval', () => {
  const TEN_MINUTES = 600_000;

  it('answers a valid interval in canonical form, 0 included', () => {
    expect(mirrorInterval('2h', TEN_MINUTES)).toBe('2h0m0s');
    expect(mirrorInterval('0', TEN_MINUTES)).toBe('0s');
    expect(mirrorInterval('10m', TEN_MINUTES)).toBe('10m0s');
  });

  it("refuses an interval below the minimum, or no duration at all, with Gitea's messages", () => {
    expect(() => mirrorInterval('9m59s', TEN_MINUTES)).toThrow(
      expect.objectContaining({ code: Code.INVALID_ARGUMENT, message: 'invalid mirror interval: 9m59s is below minimum interval: 10m0s' }),
    );
    expect(() => mirrorInterval('often', TEN_MINUTES)).toThrow(expect.objectContaining({ message: 'time: invalid duration "often"' }));
  });
});
