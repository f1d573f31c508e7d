import { encodeGoQuery, goFormBool, goFormInt, goFormOptionalBool, goFormString, goQueryEscape, parseGoQuery } from './go-query';

describe('parseGoQuery', () => {
  it('keeps repeated keys in order and decodes + and %XX', () => {
    const values = parseGoQuery('a=1&b=x+y&a=2&c=%41%20');
    expect([...values.entries()]).toEqual([
      ['a', ['1', '2']],
      ['b', ['x y']],
      ['c', ['A ']],
    ]);
  });
  it('drops pairs Go rejects: with ";" or a bad escape', () => {
    const values = parseGoQuery('a=1;b=2&c=%zz&d=ok&&e');
    expect([...values.entries()]).toEqual([
      ['d', ['ok']],
      ['e', ['']],
    ]);
  });
});

describe('encodeGoQuery', () => {
  it('sorts keys and escapes like url.QueryEscape', () => {
    const values = new Map([
      ['z', ['a b']],
      ['a', ["it's (*)~", '2']],
    ]);
    expect(encodeGoQuery(values)).toBe('a=it%27s+%28%2A%29~&a=2&z=a+b');
  });
  it('escapes non-ASCII as UTF-8 bytes', () => {
    expect(goQueryEscape('✓/')).toBe('%E2%9C%93%2F');
  });
});

describe('form readers', () => {
  const values = parseGoQuery('n=42&neg=-3&bad=4x&t=true&one=1&f=no&s=hi');
  it('goFormInt reads integers only', () => {
    expect(goFormInt(values, 'n')).toBe(42);
    expect(goFormInt(values, 'neg')).toBe(-3);
    expect(goFormInt(values, 'bad')).toBe(0);
    expect(goFormInt(values, 'missing')).toBe(0);
  });
  it('goFormBool follows strconv.ParseBool', () => {
    expect(goFormBool(values, 't')).toBe(true);
    expect(goFormBool(values, 'one')).toBe(true);
    expect(goFormBool(values, 'f')).toBe(false);
    expect(goFormBool(values, 'missing')).toBe(false);
  });
  it('goFormOptionalBool tells absent from false, and reads "on" as true', () => {
    const flags = parseGoQuery('a=true&b=false&c=ON&d=junk&e=');
    expect(['a', 'b', 'c', 'd', 'e', 'missing'].map((name) => goFormOptionalBool(flags, name))).toEqual([true, false, true, false, undefined, undefined]);
  });
  it('goFormString gives the first value or ""', () => {
    expect(goFormString(values, 's')).toBe('hi');
    expect(goFormString(values, 'missing')).toBe('');
  });
});
