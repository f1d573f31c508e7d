import { htmlEscape, htmlLink, marshalIndent, pathEscape, pathEscapeSegments, queryEscape, refShortName, refURL, srcURL } from './text';

describe('Go escaping', () => {
  it('escapes HTML like html.EscapeString', () => {
    expect(htmlEscape(`a<b>&'"`)).toBe('a&lt;b&gt;&amp;&#39;&#34;');
    expect(htmlLink('https://x/?a=1&b=2', '<t>')).toBe('<a href="https://x/?a=1&amp;b=2">&lt;t&gt;</a>');
  });

  it('escapes paths like url.PathEscape and util.PathEscapeSegments', () => {
    expect(pathEscape("a b/c!'()*$&+:=@")).toBe("a%20b%2Fc%21%27%28%29%2A$&+:=@");
    expect(pathEscapeSegments('feature/a b')).toBe('feature/a%20b');
  });

  it('escapes queries like url.QueryEscape', () => {
    expect(queryEscape("https://x/a b?c=d&e!")).toBe('https%3A%2F%2Fx%2Fa+b%3Fc%3Dd%26e%21');
  });

  it('marshals like json.MarshalIndent with HTML escaping', () => {
    expect(marshalIndent({ a: '<b>&', n: null })).toBe('{\n  "a": "\\u003cb\\u003e\\u0026",\n  "n": null\n}');
    expect(JSON.parse(marshalIndent({ a: '<b>&' }))).toEqual({ a: '<b>&' });
  });
});

describe('refs', () => {
  it('shortens full ref names and keeps short ones', () => {
    expect(refShortName('refs/heads/feature/x')).toBe('feature/x');
    expect(refShortName('refs/tags/v1.0')).toBe('v1.0');
    expect(refShortName('refs/pull/3/head')).toBe('3');
    expect(refShortName('main')).toBe('main');
  });

  it('links refs like git.RefURL', () => {
    expect(refURL('https://r', 'refs/heads/a b')).toBe('https://r/src/branch/a%20b');
    expect(refURL('https://r', 'refs/tags/v1')).toBe('https://r/src/tag/v1');
    expect(refURL('https://r', 'main')).toBe('https://r/src/branch/main');
    expect(refURL('https://r', 'a'.repeat(40))).toBe(`https://r/src/commit/${'a'.repeat(40)}`);
    expect(srcURL('https://r', 'refs/tags/v1')).toBe('https://r/src/v1');
  });
});
