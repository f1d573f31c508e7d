/** The dump writer: a small repository's items → files equal to what Gitea's dumper (yaml.v3) writes for them. */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Comment, Issue, Label, PullRequest, Release, Review } from './base';
import { DumpUploader } from './dump';
import { goTime } from './dump-format';

const created = new Date('2021-05-27T13:24:13Z');
const updated = new Date('2021-11-11T09:52:45.25Z');
const bug: Label = { name: 'bug', color: 'ee0701', description: 'Something is not working', exclusive: false };
const black: Label = { name: 'kind/black', color: '000000', description: '', exclusive: true };

const issue: Issue = {
  number: 1,
  posterId: 7,
  posterName: 'alice',
  posterEmail: 'alice@example.com',
  title: 'Crash: on start',
  content: 'It crashes.\nEvery time.',
  ref: '',
  milestone: 'v1.0',
  state: 'closed',
  isLocked: false,
  created,
  updated,
  closed: updated,
  labels: [bug],
  reactions: [{ userId: 8, userName: 'bob', content: '+1' }],
  assignees: ['bob'],
  foreignIndex: 1,
};

const comment = (issueIndex: number, index: number, content: string): Comment => ({
  issueIndex,
  index,
  commentType: 'comment',
  posterId: 8,
  posterName: 'bob',
  posterEmail: 'bob@example.com',
  created,
  updated: created,
  content,
  reactions: index === 11 ? [{ userId: 7, userName: 'alice', content: 'heart' }] : [],
});

const release: Release = {
  tagName: 'v1.0',
  targetCommitish: 'main',
  name: '1.0',
  body: '',
  draft: false,
  prerelease: true,
  publisherId: 7,
  publisherName: 'alice',
  publisherEmail: 'alice@example.com',
  assets: [],
  created,
  published: created,
};

const branch = { cloneUrl: 'http://source/alice/tools.git', repoName: 'tools', ownerName: 'alice' };
const pull: PullRequest = {
  number: 2,
  title: 'Fix',
  posterName: 'bob',
  posterId: 8,
  posterEmail: 'bob@example.com',
  content: 'yes',
  milestone: '',
  state: 'open',
  created,
  updated: created,
  labels: [],
  patchUrl: 'http://source/alice/tools/pulls/2.patch',
  merged: false,
  mergeCommitSha: '',
  head: { ...branch, ref: 'fix', sha: 'a'.repeat(40) },
  base: { ...branch, ref: 'main', sha: 'b'.repeat(40) },
  assignees: [],
  isLocked: false,
  reactions: [],
  foreignIndex: 2,
  isDraft: false,
};

const review: Review = {
  id: 5,
  issueIndex: 2,
  reviewerId: 7,
  reviewerName: 'alice',
  official: true,
  commitId: 'a'.repeat(40),
  content: 'LGTM',
  createdAt: created,
  state: 'APPROVED',
  comments: [
    {
      id: 6,
      inReplyTo: 0,
      content: 'nit',
      treePath: 'README.md',
      diffHunk: '@@ -1 +1 @@\n-a\n+b',
      position: 1,
      line: 1,
      commitId: 'a'.repeat(40),
      posterId: 7,
      reactions: [],
      createdAt: created,
      updatedAt: created,
    },
  ],
};

describe('DumpUploader', () => {
  let dir: string;
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'cairn-dump-'));
    dir = path.join(root, 'alice', 'tools');
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const read = (name: string) => readFile(path.join(dir, name), 'utf8');

  it('writes Gitea yaml.v3 output for each item kind, batches appended to one list', async () => {
    const patches: string[] = [];
    const dumper = await DumpUploader.create({
      dir,
      readPatch: async (wanted) => {
        patches.push(wanted.patchUrl);
        return Buffer.from('From aaaa\n');
      },
    });
    await dumper.writeRepo({
      name: 'tools',
      owner: 'alice',
      description: '',
      cloneAddr: 'http://source/alice/tools.git',
      originalUrl: 'http://source/alice/tools',
      isPrivate: false,
      service: 'gitea',
      wiki: false,
      issues: true,
      milestones: true,
      labels: true,
      releases: true,
      comments: true,
      pulls: true,
      assets: false,
    });
    await dumper.createTopics(['go', 'yes']);
    await dumper.createMilestones([{ title: 'v1.0', description: 'First', deadline: updated, created, state: 'open' }]);
    await dumper.createLabels([bug]);
    await dumper.createLabels([black]);
    await dumper.createReleases([release]);
    await dumper.createIssues([issue]);
    await dumper.createComments([comment(1, 10, 'first'), comment(1, 11, 'true'), comment(3, 12, '')]);
    await dumper.createPullRequests([pull]);
    await dumper.createReviews([review]);

    expect(await read('repo.yml')).toBe(
      [
        'assets: false',
        'clone_addr: http://source/alice/tools.git',
        'comments: true',
        'description: ""',
        'is_private: false',
        'issues: true',
        'labels: true',
        'milestones: true',
        'name: tools',
        'original_url: http://source/alice/tools',
        'owner: alice',
        'pulls: true',
        'releases: true',
        'service_type: 3',
        'wiki: false',
        '',
      ].join('\n'),
    );
    expect(await read('topic.yml')).toBe('topics:\n    - go\n    - "yes"\n');
    expect(await read('milestone.yml')).toBe(
      [
        '- title: v1.0',
        '  description: First',
        '  deadline: 2021-11-11T09:52:45.25Z',
        '  created: 2021-05-27T13:24:13Z',
        '  updated: null',
        '  closed: null',
        '  state: open',
        '',
      ].join('\n'),
    );
    expect(await read('label.yml')).toBe(
      [
        '- name: bug',
        '  color: ee0701',
        '  description: Something is not working',
        '  exclusive: false',
        '- name: kind/black',
        '  color: "000000"',
        '  description: ""',
        '  exclusive: true',
        '',
      ].join('\n'),
    );
    expect(await read('release.yml')).toBe(
      [
        '- tag_name: v1.0',
        '  target_commitish: main',
        '  name: "1.0"',
        '  body: ""',
        '  draft: false',
        '  prerelease: true',
        '  publisher_id: 7',
        '  publisher_name: alice',
        '  publisher_email: alice@example.com',
        '  assets: []',
        '  created: 2021-05-27T13:24:13Z',
        '  published: 2021-05-27T13:24:13Z',
        '',
      ].join('\n'),
    );
    expect(await read('issue.yml')).toBe(
      [
        '- number: 1',
        '  poster_id: 7',
        '  poster_name: alice',
        '  poster_email: alice@example.com',
        "  title: 'Crash: on start'",
        '  content: |-',
        '    It crashes.',
        '    Every time.',
        '  ref: ""',
        '  milestone: v1.0',
        '  state: closed',
        '  is_locked: false',
        '  created: 2021-05-27T13:24:13Z',
        '  updated: 2021-11-11T09:52:45.25Z',
        '  closed: 2021-11-11T09:52:45.25Z',
        '  labels:',
        '    - name: bug',
        '      color: ee0701',
        '      description: Something is not working',
        '      exclusive: false',
        '  reactions:',
        '    - user_id: 8',
        '      user_name: bob',
        '      content: "+1"',
        '  assignees:',
        '    - bob',
        '  foreignindex: 1',
        '',
      ].join('\n'),
    );
    expect((await readdir(path.join(dir, 'comments'))).sort()).toEqual(['1.yml', '3.yml']);
    const commentYaml = (index: number, content: string, reactions: string[]) =>
      [
        '- issue_index: 1',
        `  index: ${index}`,
        '  comment_type: comment',
        '  poster_id: 8',
        '  poster_name: bob',
        '  poster_email: bob@example.com',
        '  created: 2021-05-27T13:24:13Z',
        '  updated: 2021-05-27T13:24:13Z',
        `  content: ${content}`,
        ...reactions,
      ].join('\n');
    expect(await read('comments/1.yml')).toBe(
      `${commentYaml(10, 'first', ['  reactions: []'])}\n${commentYaml(11, '"true"', ['  reactions:', '    - user_id: 7', '      user_name: alice', '      content: heart'])}\n`,
    );
    expect(await read('pull_request.yml')).toBe(
      [
        '- number: 2',
        '  title: Fix',
        '  poster_name: bob',
        '  poster_id: 8',
        '  poster_email: bob@example.com',
        '  content: "yes"',
        '  milestone: ""',
        '  state: open',
        '  created: 2021-05-27T13:24:13Z',
        '  updated: 2021-05-27T13:24:13Z',
        '  closed: null',
        '  labels: []',
        '  patch_url: git/pulls/2.patch',
        '  merged: false',
        '  merged_time: null',
        '  merge_commit_sha: ""',
        '  head:',
        '    clone_url: http://source/alice/tools.git',
        '    ref: fix',
        `    sha: ${'a'.repeat(40)}`,
        '    repo_name: tools',
        '    owner_name: alice',
        '  base:',
        '    clone_url: http://source/alice/tools.git',
        '    ref: main',
        `    sha: ${'b'.repeat(40)}`,
        '    repo_name: tools',
        '    owner_name: alice',
        '  assignees: []',
        '  is_locked: false',
        '  reactions: []',
        '  foreignindex: 2',
        '  ensured_safe: true',
        '  is_draft: false',
        '',
      ].join('\n'),
    );
    expect(patches).toEqual(['http://source/alice/tools/pulls/2.patch']);
    expect(await read('git/pulls/2.patch')).toBe('From aaaa\n');
    expect(await read('reviews/2.yml')).toBe(
      [
        '- id: 5',
        '  issue_index: 2',
        '  reviewer_id: 7',
        '  reviewer_name: alice',
        '  official: true',
        `  commit_id: ${'a'.repeat(40)}`,
        '  content: LGTM',
        '  created_at: 2021-05-27T13:24:13Z',
        '  state: APPROVED',
        '  comments:',
        '    - id: 6',
        '      in_reply_to: 0',
        '      content: nit',
        '      tree_path: README.md',
        '      diff_hunk: |-',
        '        @@ -1 +1 @@',
        '        -a',
        '        +b',
        '      position: 1',
        '      line: 1',
        `      commit_id: ${'a'.repeat(40)}`,
        '      poster_id: 7',
        '      reactions: []',
        '      created_at: 2021-05-27T13:24:13Z',
        '      updated_at: 2021-05-27T13:24:13Z',
        '',
      ].join('\n'),
    );
  });

  it('writes no file for an empty batch', async () => {
    const dumper = await DumpUploader.create({ dir, readPatch: () => Promise.reject(new Error('not called')) });
    await dumper.createLabels([]);
    await dumper.createIssues([]);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('goTime', () => {
  it('formats as Go time.RFC3339Nano in UTC, trailing zeros of the fraction dropped', () => {
    expect(goTime(new Date('2024-01-02T03:04:05.000Z'))).toBe('2024-01-02T03:04:05Z');
    expect(goTime(new Date('2024-01-02T03:04:05.120Z'))).toBe('2024-01-02T03:04:05.12Z');
    expect(goTime(new Date('2024-01-02T03:04:05.007Z'))).toBe('2024-01-02T03:04:05.007Z');
  });
});
