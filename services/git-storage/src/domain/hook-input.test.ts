import { parseHookInput } from './hook-input';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('parseHookInput', () => {
  it('reads one update per line', () => {
    expect(parseHookInput(`${A} ${B} refs/heads/main\n${B} ${A} refs/tags/v1\n`)).toEqual([
      { oldSha: A, newSha: B, ref: 'refs/heads/main' },
      { oldSha: B, newSha: A, ref: 'refs/tags/v1' },
    ]);
    expect(parseHookInput('')).toEqual([]);
  });

  it.each([`${A} ${B}`, `${A} ${B} main`, `x ${B} refs/heads/main`, `${A} ${B} refs/heads/a b`])('refuses %j', (line) => {
    expect(parseHookInput(`${line}\n`)).toBeUndefined();
  });
});
