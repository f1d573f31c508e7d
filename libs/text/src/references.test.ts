import { DEFAULT_CLOSE_KEYWORDS, DEFAULT_REOPEN_KEYWORDS } from '@cairn/config';
import { withoutCode } from './markdown-code';
import { actionReferences, issueReferences } from './references';

const keywords = { close: DEFAULT_CLOSE_KEYWORDS, reopen: DEFAULT_REOPEN_KEYWORDS };
const refs = (text: string, markdown = true) => actionReferences(text, keywords, markdown).map((ref) => `${ref.action} ${ref.owner}/${ref.repo}#${ref.index}`);

describe('actionReferences', () => {
  it.each([
    ['Fixes #12', ['close /#12']],
    ['fixes: #12', ['close /#12']],
    ['This CLOSES #3.', ['close /#3']],
    ['(resolved #7)', ['close /#7']],
    ['[closed #8]', ['close /#8']],
    ['Reopens #4, please', ['reopen /#4']],
    ['fix #1 and resolves acme/app#2\nreopened #3', ['close /#1', 'close acme/app#2', 'reopen /#3']],
    ['closes #5: done', ['close /#5']],
    ['closes #5!', ['close /#5']],
  ])('finds the action in %j', (text, expected) => {
    expect(refs(text)).toEqual(expected);
  });

  it.each([
    ['a plain reference', 'see #12'],
    ['a keyword inside a word', 'prefixes #12'],
    ['two spaces after the keyword', 'fixes  #12'],
    ['a keyword far before the reference', 'fixes the bug in #12'],
    ['a reference glued to text', 'fixes #12abc'],
    ['a reference after a slash only', 'fixes /#12'],
    ['punctuation without a space after it', 'fixes #12.x'],
    ['a pull-request reference', 'fixes !12'],
    ['a zero index', 'fixes #0'],
  ])('ignores %s', (_what, text) => {
    expect(refs(text)).toEqual([]);
  });

  it('reads a body without its code, a title as it is', () => {
    const body = 'Done.\n```\nfixes #1\n```\nand `closes #2` but closes #3\n';
    expect(refs(body)).toEqual(['close /#3']);
    expect(refs('`closes #2`', false)).toEqual([]);
    expect(refs('closes #2 `x`', false)).toEqual(['close /#2']);
    expect(withoutCode('a `b` c')).toBe('a     c');
    // Indented code blocks too (Gitea's stripper drops every code block), unless the line continues a paragraph.
    expect(refs('Done.\n\n    fixes #4\nthen\n    fixes #5')).toEqual(['close /#5']);
  });

  it('ends an unclosed fence at the end of the text, and leaves unmatched backticks literal', () => {
    expect(refs('closes #1\n```\nfixes #2\n\nfixes #3')).toEqual(['close /#1']);
    expect(refs('``x` and fixes #5 ```')).toEqual(['close /#5']);
    expect(refs('`a` fixes #6 ``b`` `c`')).toEqual(['close /#6']);
  });

  it('reads markdown that would make a backtracking scan quadratic (a long wait here would time the test out)', () => {
    expect(refs(`\`\` ${'` '.repeat(200_000)}fixes #7`)).toEqual(['close /#7']);
    expect(refs(`${'```\n'.repeat(50_000)}fixes #8`)).toEqual(['close /#8']);
    expect(refs('```\n```\nfixes #9')).toEqual(['close /#9']);
  });

  it('honours configured keywords, and none at all', () => {
    expect(actionReferences('finishes #9, revives #10', { close: ['finishes'], reopen: ['revives'] }).map((ref) => ref.action)).toEqual(['close', 'reopen']);
    expect(actionReferences('fixes #9', { close: [], reopen: [] })).toEqual([]);
  });

  it('decides from the text right before each reference only, however long the text is', () => {
    const long = `${'x '.repeat(10_000)}fixes #1 ${'y '.repeat(10_000)}#2`;
    expect(refs(long)).toEqual(['close /#1']);
  });
});

describe('issueReferences', () => {
  it('finds plain references too, and counts only the first hundred', () => {
    expect(issueReferences('see #1, fixes acme/app#2 and (#3)', keywords)).toEqual([
      { owner: '', repo: '', index: 1 },
      { owner: 'acme', repo: 'app', index: 2, action: 'close' },
      { owner: '', repo: '', index: 3 },
    ]);
    expect(issueReferences(Array.from({ length: 150 }, (_, i) => `#${i + 1}`).join(' '), keywords)).toHaveLength(100);
  });
});
