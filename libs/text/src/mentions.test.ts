/** Gitea's @mention pattern over issue and comment bodies (mentions.ts). */
import { findMentionedNames, MAX_MENTIONS_PER_BODY } from './mentions';

test.each<[string, string[]]>([
  ['@alice', ['alice']],
  ['hi @alice @bob', ['alice', 'bob']],
  ['@alice, @Bob. @carol! end', ['alice', 'Bob', 'carol']],
  ['@alice:', ['alice']],
  ['mail me at a@b.com', []],
  ['(@dave) [@eve]', ['dave', 'eve']],
  ["@frank's idea", ['frank']],
  ['@a.b.', ['a.b']],
  ['@-x', ['-x']],
  ['@@x', []],
  ['@x@y', []],
  ['@alice and @ALICE', ['alice']],
  ['@org/team and @x', ['x']],
  ['`@code` @real', ['real']],
  ['```\n@inblock\n```\n@after', ['after']],
  ['    @indented code\n@text', ['text']],
  // An indented line right after text continues the paragraph (CommonMark): it is no code block.
  ['see\n    @continued', ['continued']],
  ['see\n\n    @code\n    @more\n@text', ['text']],
])('%j mentions %j', (body, names) => {
  expect(findMentionedNames(body)).toEqual(names);
});

test(`at most ${MAX_MENTIONS_PER_BODY} distinct names are taken from one body`, () => {
  const body = Array.from({ length: 80 }, (_, i) => `@user${i}`).join(' ');
  const names = findMentionedNames(body);
  expect(names).toHaveLength(MAX_MENTIONS_PER_BODY);
  expect(names[0]).toBe('user0');
  expect(names[49]).toBe('user49');
});

test('a large body without mentions is scanned quickly', () => {
  const body = `${'word @ '.repeat(150_000)}@last`;
  const started = Date.now();
  expect(findMentionedNames(body)).toEqual(['last']);
  expect(Date.now() - started).toBeLessThan(1000);
});
