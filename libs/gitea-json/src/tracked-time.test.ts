/** Gitea's util.SecToHours as StopWatch.duration shows it, and the StopWatch shape (tracked-time.ts). */
import { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { secondsToHours, toApiStopWatches } from './tracked-time';

test.each<[number, string]>([
  [0, ''],
  [1, '1 second'],
  [59, '59 seconds'],
  [60, '1 minute'],
  [61, '1 minute'],
  [3600, '1 hour'],
  [3725, '1 hour 2 minutes'],
  [7322, '2 hours 2 minutes'],
  [90_061, '25 hours 1 minute'],
])('%d seconds read "%s"', (seconds, text) => {
  expect(secondsToHours(seconds)).toBe(text);
});

test('a stopwatch shows the seconds it ran until now; one in a repository not given is left out', () => {
  const repository = Repository.fromPartial({ id: 7, ownerName: 'alice', name: 'tt' });
  const created = new Date('2024-05-01T10:00:00Z');
  const now = new Date('2024-05-01T11:02:05.900Z');
  const stopwatches = [
    { issueId: 1, repoId: 7, issueIndex: 3, issueTitle: 'three', created },
    { issueId: 2, repoId: 8, issueIndex: 1, issueTitle: 'hidden', created },
  ];
  expect(toApiStopWatches(stopwatches, new Map([[7, repository]]), now)).toEqual([
    {
      created: '2024-05-01T10:00:00Z',
      seconds: 3725,
      duration: '1 hour 2 minutes',
      issue_index: 3,
      issue_title: 'three',
      repo_owner_name: 'alice',
      repo_name: 'tt',
    },
  ]);
});
