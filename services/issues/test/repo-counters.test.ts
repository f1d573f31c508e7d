/** GetRepoIssueCounters: open issues and open pull requests per repository, from the trigger-kept counters. */
import { scope, startService, type ServiceHarness } from './harness';

let h: ServiceHarness;

beforeAll(async () => {
  h = await startService();
});
afterAll(async () => {
  await h.stop();
});

test('counts open issues and pulls per repository, in the order asked, zero where there are none', async () => {
  const writer = scope({ userId: 7, mode: 'write', repoId: 41 });
  await h.issues.createIssue({ scope: writer, title: 'a', body: '', ref: '', assigneeIds: [], milestoneId: 0, labelIds: [], closed: false });
  const b = await h.issues.createIssue({ scope: writer, title: 'b', body: '', ref: '', assigneeIds: [], milestoneId: 0, labelIds: [], closed: false });
  await h.issues.createIssue({ scope: writer, title: 'c', body: '', ref: '', assigneeIds: [], milestoneId: 0, labelIds: [], closed: true });
  await h.sql.query(`INSERT INTO issues (repo_id, index, poster_id, title, is_pull) VALUES (41, 100, 7, 'a pull', true)`);
  await h.issues.editIssue({ scope: writer, index: b.issue!.index, fields: ['state'], state: 'closed', title: '', body: '', ref: '', assigneeIds: [], milestoneId: 0, contentVersion: 0 });
  const { counters } = await h.issues.getRepoIssueCounters({ repoIds: [99, 41, 41, -3] });
  expect(counters).toEqual([
    { repoId: 99, openIssues: 0, openPulls: 0 },
    { repoId: 41, openIssues: 1, openPulls: 1 },
  ]);
});
