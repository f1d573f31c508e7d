import { Code } from '@cairn/rpc';
import { MERGE_STYLES, parseMergeStyle, replaysCommits, writesMergeCommit } from './merge-style';

describe('parseMergeStyle', () => {
  it('accepts the five styles and nothing else', () => {
    for (const style of MERGE_STYLES) expect(parseMergeStyle(style)).toBe(style);
    for (const style of ['', 'Merge', 'manually-merged', 'ff', 'squash ']) {
      expect(() => parseMergeStyle(style)).toThrow(expect.objectContaining({ code: Code.INVALID_ARGUMENT, reason: 'invalid_merge_style' }));
    }
  });

  it('knows which styles write a merge commit and which replay commits', () => {
    expect(MERGE_STYLES.filter(writesMergeCommit)).toEqual(['merge', 'rebase-merge', 'squash']);
    expect(MERGE_STYLES.filter(replaysCommits)).toEqual(['rebase', 'rebase-merge']);
  });
});
