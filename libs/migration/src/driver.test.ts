/** The driver with an in-memory source and a recording destination: Gitea's order, resume, items switched off. */
import type { Comment, Downloader, Issue, MigrationItems, Page, PullRequest, Release, RepoComment, Review, Uploader } from './base';
import { type MigrationStep, migrateItems } from './driver';

const at = new Date('2024-01-01T00:00:00Z');
const issue = (number: number): Issue => ({
  number,
  posterId: 1,
  posterName: 'alice',
  posterEmail: '',
  title: `#${number}`,
  content: '',
  ref: '',
  milestone: '',
  state: 'open',
  isLocked: false,
  created: at,
  updated: at,
  labels: [],
  reactions: [],
  assignees: [],
  foreignIndex: number,
});
const comment = (issueIndex: number, index: number): Comment => ({
  issueIndex,
  index,
  commentType: '',
  posterId: 1,
  posterName: 'alice',
  posterEmail: '',
  created: at,
  updated: at,
  content: '',
  reactions: [],
});
const pull = (number: number): PullRequest => {
  const branch = { cloneUrl: '', ref: 'main', sha: '', repoName: 'tools', ownerName: 'alice' };
  return { ...issue(number), posterName: 'alice', patchUrl: '', merged: false, mergeCommitSha: '', head: branch, base: branch, isDraft: false };
};
const release: Release = {
  tagName: 'v1',
  targetCommitish: 'main',
  name: 'v1',
  body: '',
  draft: false,
  prerelease: false,
  publisherId: 1,
  publisherName: 'alice',
  publisherEmail: '',
  assets: [{ id: 1, name: 'a.zip', created: at, updated: at }],
  created: at,
  published: at,
};

/** Pages of 2 over issues 5..1 (newest first) and pull requests 7..6; comments on issues 5, 3 and 7. */
function source(calls: string[]): Downloader {
  const pageOf = <T>(all: T[], page: number, perPage: number): Page<T> => ({
    items: all.slice((page - 1) * perPage, page * perPage),
    isEnd: page * perPage >= all.length,
  });
  const comments: Record<number, Comment[]> = { 5: [comment(5, 1), comment(5, 2)], 3: [comment(3, 3)], 7: [comment(7, 4)] };
  return {
    getRepoInfo: () => Promise.reject(new Error('not used')),
    getTopics: async () => (calls.push('get topics'), ['a', 'b']),
    getMilestones: async () => (calls.push('get milestones'), ['m1', 'm2', 'm3'].map((title) => ({ title, description: '', created: at, state: 'open' as const }))),
    getLabels: async () => (calls.push('get labels'), ['l1', 'l2', 'l3'].map((name) => ({ name, color: 'ffffff', description: '', exclusive: false }))),
    getReleases: async () => (calls.push('get releases'), [release]),
    getIssues: async (page, perPage) => (calls.push(`get issues ${page}`), pageOf([5, 4, 3, 2, 1].map(issue), page, perPage)),
    getComments: async (number) => (calls.push(`get comments ${number}`), comments[number] ?? []),
    getPullRequests: async (page, perPage) => (calls.push(`get pulls ${page}`), pageOf([7, 6].map(pull), page, perPage)),
    getReviews: async (number): Promise<Review[]> => (calls.push(`get reviews ${number}`), []),
    openReleaseAsset: () => Promise.reject(new Error('not used')),
    getPullPatch: () => Promise.reject(new Error('not used')),
  };
}

function destination(calls: string[], created: { releases: Release[] }): Uploader {
  return {
    createTopics: async (topics) => void calls.push(`topics ${topics.join(',')}`),
    createMilestones: async (list) => void calls.push(`milestones ${list.map((milestone) => milestone.title).join(',')}`),
    createLabels: async (list) => void calls.push(`labels ${list.map((label) => label.name).join(',')}`),
    createReleases: async (list) => void (created.releases.push(...list), calls.push(`releases ${list.length}`)),
    createIssues: async (list) => void calls.push(`issues ${list.map((item) => item.number).join(',')}`),
    createComments: async (list) => void calls.push(`comments ${list.map((item) => item.index).join(',')}`),
    createPullRequests: async (list) => void calls.push(`pulls ${list.map((item) => item.number).join(',')}`),
    createReviews: async (list) => void calls.push(`reviews ${list.length}`),
  };
}

const everything: MigrationItems = {
  wiki: false,
  milestones: true,
  labels: true,
  issues: true,
  comments: true,
  pullRequests: true,
  releases: true,
  releaseAssets: true,
};

/** The same source listing its comments repository-wide too, oldest first: 1, 2 (issue 5), 3 (issue 3), 4 (pull 7). */
function repoWideSource(calls: string[]): Downloader {
  const all: RepoComment[] = [
    { comment: comment(5, 1), onPullRequest: false },
    { comment: comment(5, 2), onPullRequest: false },
    { comment: comment(3, 3), onPullRequest: false },
    { comment: comment(7, 4), onPullRequest: true },
  ];
  return {
    ...source(calls),
    getAllComments: async (page, perPage) => (
      calls.push(`get all comments ${page}`), { items: all.slice((page - 1) * perPage, page * perPage), isEnd: page * perPage >= all.length }
    ),
  };
}

async function run(items: MigrationItems, resumeFrom?: { step: MigrationStep; done: number }, from = source) {
  const calls: string[] = [];
  const created = { releases: [] as Release[] };
  const records: string[] = [];
  const progress = { resumeFrom, record: async (step: MigrationStep, done: number) => void records.push(`${step} ${done}`) };
  await migrateItems(from(calls), destination(calls, created), items, progress, { perPage: 2 });
  return { uploads: calls.filter((call) => !call.startsWith('get ')), calls, records, created };
}

describe('migrateItems', () => {
  it('moves everything in Gitea’s order, each page’s comments after its issues, recording every batch', async () => {
    const { uploads, records, calls } = await run(everything);
    expect(uploads).toEqual([
      'topics a,b',
      'milestones m1,m2',
      'milestones m3',
      'labels l1,l2',
      'labels l3',
      'releases 1',
      'issues 5,4',
      'comments 1,2',
      'issues 3,2',
      'comments 3',
      'issues 1',
      'pulls 7,6',
      'comments 4',
    ]);
    expect(records).toEqual([
      'topics 2',
      'milestones 2',
      'milestones 3',
      'labels 2',
      'labels 3',
      'releases 1',
      'issues 1',
      'comments 1',
      'issues 2',
      'comments 2',
      'issues 3',
      'comments 3',
      'pull_requests 1',
      'reviews 1',
    ]);
    expect(calls).toContain('get reviews 7');
  });

  it('skips items switched off, and release assets unless chosen', async () => {
    const { uploads, calls, created } = await run({ ...everything, milestones: false, labels: false, comments: false, pullRequests: false, releaseAssets: false });
    expect(uploads).toEqual(['topics a,b', 'releases 1', 'issues 5,4', 'issues 3,2', 'issues 1']);
    expect(calls.some((call) => call.startsWith('get comments') || call.startsWith('get pulls') || call === 'get labels')).toBe(false);
    expect(created.releases[0].assets).toEqual([]);
  });

  it('resumes inside a listed step from the recorded count', async () => {
    const { uploads } = await run(everything, { step: 'labels', done: 2 });
    expect(uploads.slice(0, 2)).toEqual(['labels l3', 'releases 1']);
  });

  it('resumes a page whose issues are in but whose comments are not, without uploading its issues again', async () => {
    const { uploads, calls } = await run(everything, { step: 'issues', done: 2 });
    expect(calls[0]).toBe('get issues 2');
    expect(uploads.slice(0, 3)).toEqual(['comments 3', 'issues 1', 'pulls 7,6']);
  });

  it('resumes after a complete page', async () => {
    expect((await run(everything, { step: 'comments', done: 1 })).uploads.slice(0, 3)).toEqual(['issues 3,2', 'comments 3', 'issues 1']);
    expect((await run({ ...everything, comments: false }, { step: 'issues', done: 1 })).uploads.slice(0, 2)).toEqual(['issues 3,2', 'issues 1']);
    expect((await run(everything, { step: 'reviews', done: 1 })).uploads).toEqual([]);
  });

  it('moves comments in one repository-wide walk after the pull requests when the source lists them', async () => {
    const { uploads, records, calls } = await run(everything, undefined, repoWideSource);
    expect(uploads.slice(6)).toEqual(['issues 5,4', 'issues 3,2', 'issues 1', 'pulls 7,6', 'comments 1,2', 'comments 3,4']);
    expect(records.slice(6)).toEqual(['issues 1', 'issues 2', 'issues 3', 'pull_requests 1', 'reviews 1', 'repo_comments 1', 'repo_comments 2']);
    expect(calls.some((call) => call.startsWith('get comments'))).toBe(false);
    expect(calls).toContain('get reviews 7');
  });

  it('leaves out repository-wide comments of pull requests when they are not moved', async () => {
    const { uploads } = await run({ ...everything, pullRequests: false }, undefined, repoWideSource);
    expect(uploads.slice(6)).toEqual(['issues 5,4', 'issues 3,2', 'issues 1', 'comments 1,2', 'comments 3']);
  });

  it('resumes the repository-wide walk after its recorded page: nothing lost, nothing sent twice', async () => {
    const first = await run(everything, undefined, repoWideSource);
    const resumed = await run(everything, { step: 'repo_comments', done: 1 }, repoWideSource);
    expect(resumed.uploads).toEqual(['comments 3,4']);
    expect(resumed.calls.filter((call) => call.startsWith('get '))).toEqual(['get all comments 2']);
    // Every comment once over the first run's page 1 and the resumed run.
    const sent = [...first.uploads.filter((u) => u === 'comments 1,2'), ...resumed.uploads].flatMap((u) => u.slice('comments '.length).split(','));
    expect(sent).toEqual(['1', '2', '3', '4']);
  });

  it('gets every comment when a task recorded by the per-issue walk resumes with a repository-wide source', async () => {
    // Page 1's issues were in, its comments not: the repository-wide walk brings them.
    const { uploads } = await run(everything, { step: 'issues', done: 1 }, repoWideSource);
    expect(uploads).toEqual(['issues 3,2', 'issues 1', 'pulls 7,6', 'comments 1,2', 'comments 3,4']);
  });

  it('stops when the signal is aborted', async () => {
    const controller = new AbortController();
    const calls: string[] = [];
    const progress = {
      record: async (step: MigrationStep) => {
        if (step === 'labels') controller.abort();
      },
    };
    await expect(migrateItems(source(calls), destination(calls, { releases: [] }), everything, progress, { perPage: 5, signal: controller.signal })).rejects.toThrow(
      /aborted/,
    );
    expect(calls).not.toContain('get releases');
  });
});
