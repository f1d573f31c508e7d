import { commentTypeName, secondsToTime } from './timeline';

describe('timeline conversion', () => {
  test('Gitea’s comment type names by number', () => {
    expect([0, 1, 2, 7, 10, 11, 25, 27, 28, 29, 34, 35, 37].map(commentTypeName)).toEqual([
      'comment',
      'reopen',
      'close',
      'label',
      'change_title',
      'delete_branch',
      'change_target_branch',
      'review_request',
      'merge_pull',
      'pull_push',
      'pull_scheduled_merge',
      'pull_cancel_scheduled_merge',
      'unpin',
    ]);
    expect(commentTypeName(99)).toBe('');
  });

  test('util.SecToTime: the two largest units', () => {
    expect(secondsToTime(66)).toBe('1 minute 6 seconds');
    expect(secondsToTime(52410)).toBe('14 hours 33 minutes');
    expect(secondsToTime(563418)).toBe('6 days 12 hours');
    expect(secondsToTime(1563418)).toBe('2 weeks 4 days');
    expect(secondsToTime(3937125)).toBe('1 month 2 weeks');
    expect(secondsToTime(45677465)).toBe('1 year 5 months');
    expect(secondsToTime(0)).toBe('');
  });
});
