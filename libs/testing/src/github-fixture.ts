/**
 * A GitHub stand-in for migration tests (there is no network here; Gitea's own github migration tests replay recorded
 * answers the same way): a loopback server answering GitHub's REST API v3 as GitHub Enterprise does (under /api/v3),
 * with hand-written answers in GitHub's shapes for one repository, octo-org/widgets, whose git data it serves over
 * smart HTTP (git http-backend) at /octo-org/widgets(.git). The git repository is made with fixed names and dates, so
 * its commits are the same everywhere; the SHAs in the answers are read from it. Lists are paged by page/per_page,
 * `perPage` at most (2 by default, so paging is exercised), with GitHub's Link header. A second listener stands for
 * GitHub's object store, where release asset downloads are redirected. Every request is recorded.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitHttpBackend } from './git-cgi';

export const GITHUB_OWNER = 'octo-org';
export const GITHUB_REPO = 'widgets';

/** How a rate-limited answer looks, given once for a path before its real answer. */
export type GithubRateLimit =
  /** 403, X-RateLimit-Remaining 0, the quota back in 1–2 s (X-RateLimit-Reset). */
  | 'quota'
  /** 429 with Retry-After: 1 (GitHub's secondary limit). */
  | 'retry-after'
  /** 200 whose X-RateLimit-Remaining is 0: the next request must wait for the reset. */
  | 'exhausted';

export interface GithubFixtureOptions {
  /** Items per page at most (default 2). */
  perPage?: number;
  /** When set, API requests need it (`Authorization: Bearer …` or `token …`); others answer 401. */
  token?: string;
  /** Paths (e.g. /api/v3/repos/octo-org/widgets/labels) answered once with a rate limit first. */
  rateLimited?: Record<string, GithubRateLimit>;
}

export interface GithubFixtureRequest {
  server: 'api' | 'objects';
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  accept: string | undefined;
  /** When it arrived (ms since the epoch). */
  at: number;
}

export interface GithubFixture {
  /** http://127.0.0.1:<port> */
  url: string;
  /** The repository's address as a user gives it: <url>/octo-org/widgets */
  cloneAddr: string;
  /** The object store's address (another host: another port). */
  objectsUrl: string;
  /** The API's answers (built with this server's URLs and the repository's SHAs). */
  data: ReturnType<typeof buildData>;
  /** The commits: main's two, the feature branch's head, the head of hubot's fork's branch hubot-fix. */
  shas: { initial: string; widget: string; feature: string; fork: string };
  /** The pull requests' patches (what `<repo>/pull/<n>.patch` answers), by number. */
  patches: Record<number, string>;
  /** The release asset's bytes. */
  assetBytes: Buffer;
  /** The rate-limited answers given, by path: when they were answered and what they asked to wait until. */
  limited: Map<string, { answeredAt: number; until: number }>;
  requests: GithubFixtureRequest[];
  /** Connections accepted by the API server. */
  connections(): number;
  close(): Promise<void>;
}

/** A pull request's head or base as GitHub shows it. */
interface PullBranch {
  label: string;
  ref: string;
  sha: string;
  user: unknown;
  repo: unknown;
}

const at = (day: string, time = '10:00:00') => `2024-${day}T${time}Z`;

function makeGitRepository(root: string): { projectRoot: string; shas: GithubFixture['shas']; patches: Record<number, string> } {
  const work = path.join(root, 'work');
  const projectRoot = path.join(root, 'served');
  const git = (args: string[], date = '2024-01-01T00:00:00Z') =>
    execFileSync('git', ['-c', 'commit.gpgsign=false', '-c', 'tag.gpgsign=false', '-c', 'init.defaultBranch=main', ...args], {
      cwd: work,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: root,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_AUTHOR_NAME: 'The Octocat',
        GIT_AUTHOR_EMAIL: 'octocat@example.com',
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_NAME: 'The Octocat',
        GIT_COMMITTER_EMAIL: 'octocat@example.com',
        GIT_COMMITTER_DATE: date,
      },
    }).trim();
  execFileSync('git', ['init', '-q', '-b', 'main', work]);
  writeFileSync(path.join(work, 'README.md'), '# widgets\n');
  git(['add', '.']);
  git(['commit', '-q', '-m', 'Initial commit'], '2024-01-01T00:00:00Z');
  writeFileSync(path.join(work, 'widget.txt'), 'a widget\n');
  git(['add', '.']);
  git(['commit', '-q', '-m', 'Add widget'], '2024-01-02T00:00:00Z');
  git(['tag', 'v1.0.0']);
  git(['checkout', '-q', '-b', 'feature']);
  writeFileSync(path.join(work, 'widget.txt'), 'a blue widget\n');
  git(['commit', '-q', '-am', 'Blue widgets'], '2024-01-03T00:00:00Z');
  // hubot's fork has a branch of its own, hubot-fix: pull request #7's head, which only the fork has.
  git(['checkout', '-q', '-b', 'hubot-fix', 'main']);
  writeFileSync(path.join(work, 'green.txt'), 'a green widget\n');
  git(['add', '.']);
  git(['commit', '-q', '-m', 'Green widgets'], '2024-01-04T00:00:00Z');
  const shas = { initial: git(['rev-parse', 'main~1']), widget: git(['rev-parse', 'main']), feature: git(['rev-parse', 'feature']), fork: git(['rev-parse', 'hubot-fix']) };
  // Pull request #4 is feature onto main, #5 was main's second commit, #7 hubot-fix (the fork's) onto main.
  const patches: Record<number, string> = {
    4: `${git(['format-patch', '--stdout', 'main..feature'])}\n`,
    5: `${git(['format-patch', '--stdout', 'main~1..main'])}\n`,
    7: `${git(['format-patch', '--stdout', 'main..hubot-fix'])}\n`,
  };
  git(['checkout', '-q', 'main']);
  const served = path.join(projectRoot, GITHUB_OWNER, `${GITHUB_REPO}.git`);
  execFileSync('git', ['clone', '-q', '--bare', '--single-branch', '--branch', 'main', work, served]);
  execFileSync('git', ['--git-dir', served, 'fetch', '-q', work, 'refs/heads/feature:refs/heads/feature', 'refs/tags/v1.0.0:refs/tags/v1.0.0']);
  const fork = path.join(projectRoot, 'hubot', `${GITHUB_REPO}.git`);
  execFileSync('git', ['clone', '-q', '--bare', '--single-branch', '--branch', 'main', work, fork]);
  execFileSync('git', ['--git-dir', fork, 'fetch', '-q', work, 'refs/heads/hubot-fix:refs/heads/hubot-fix']);
  // GitHub keeps every pull request's head as refs/pull/<n>/head of the base repository (the fork's too).
  execFileSync('git', ['--git-dir', served, 'fetch', '-q', work, `refs/heads/hubot-fix:refs/pull/7/head`, 'refs/heads/feature:refs/pull/4/head']);
  execFileSync('git', ['--git-dir', served, 'update-ref', 'refs/pull/5/head', shas.widget]);
  return { projectRoot, shas, patches };
}

/** GitHub's answers for octo-org/widgets, as its REST API v3 shapes them (abridged to what a client reads, plus the usual ids). */
function buildData(url: string, shas: GithubFixture['shas'], assetSize: number) {
  const api = `${url}/api/v3`;
  const repoApi = `${api}/repos/${GITHUB_OWNER}/${GITHUB_REPO}`;
  const html = `${url}/${GITHUB_OWNER}/${GITHUB_REPO}`;
  const user = (login: string, id: number, email?: string) => ({
    login,
    id,
    node_id: `U_${id}`,
    avatar_url: `${url}/avatars/u/${id}`,
    gravatar_id: '',
    url: `${api}/users/${login}`,
    html_url: `${url}/${login}`,
    type: 'User',
    site_admin: false,
    // GitHub shows an e-mail only where the account makes it public.
    ...(email === undefined ? {} : { email }),
  });
  // octocat shows its e-mail; hubot and monalisa do not; ghost is GitHub's stand-in for deleted accounts.
  const octocat = user('octocat', 583231, 'octocat@example.com');
  const hubot = user('hubot', 480938);
  const monalisa = user('monalisa', 2);
  const ghost = user('ghost', 10137);
  const org = { ...user(GITHUB_OWNER, 9919, undefined), type: 'Organization' };
  const label = (id: number, name: string, color: string, description: string) => ({ id, node_id: `L_${id}`, url: `${repoApi}/labels/${encodeURIComponent(name)}`, name, color, default: false, description });
  const bug = label(208045946, 'bug', 'd73a4a', "Something isn't working");
  const enhancement = label(208045947, 'enhancement', 'a2eeef', 'New feature or request');
  const firstIssue = label(208045948, 'good first issue', '7057ff', 'Good for newcomers');
  const milestone = (number: number, title: string, fields: Record<string, unknown>) => ({
    url: `${repoApi}/milestones/${number}`,
    html_url: `${html}/milestone/${number}`,
    labels_url: `${repoApi}/milestones/${number}/labels`,
    id: 1002600 + number,
    node_id: `MI_${number}`,
    number,
    title,
    description: null as string | null,
    creator: octocat,
    open_issues: 0,
    closed_issues: 0,
    state: 'open',
    created_at: at('01-02'),
    updated_at: at('01-03'),
    due_on: null as string | null,
    closed_at: null as string | null,
    ...fields,
  });
  const v1 = milestone(1, 'v1.0', { description: 'First release', open_issues: 1, due_on: '2030-01-01T08:00:00Z' });
  const v09 = milestone(2, 'v0.9', { state: 'closed', closed_issues: 1, created_at: '2023-11-01T09:00:00Z', updated_at: '2023-12-01T09:00:00Z', closed_at: '2023-12-01T09:00:00Z' });
  const v2 = milestone(3, 'v2.0', { description: 'Green widgets', open_issues: 1, created_at: at('01-04') });
  const rollup = (itemUrl: string, counts: Record<string, number> = {}) => ({
    url: `${itemUrl}/reactions`,
    total_count: Object.values(counts).reduce((sum, n) => sum + n, 0),
    '+1': 0,
    '-1': 0,
    laugh: 0,
    hooray: 0,
    confused: 0,
    heart: 0,
    rocket: 0,
    eyes: 0,
    ...counts,
  });
  const issue = (number: number, fields: Record<string, unknown>, counts: Record<string, number> = {}) => ({
    url: `${repoApi}/issues/${number}`,
    repository_url: repoApi,
    labels_url: `${repoApi}/issues/${number}/labels{/name}`,
    comments_url: `${repoApi}/issues/${number}/comments`,
    events_url: `${repoApi}/issues/${number}/events`,
    html_url: `${html}/issues/${number}`,
    id: 1500000 + number,
    node_id: `I_${number}`,
    number,
    title: `Issue ${number}`,
    user: octocat as ReturnType<typeof user> | null,
    labels: [] as unknown[],
    state: 'open',
    locked: false,
    assignee: null as unknown,
    assignees: [] as unknown[],
    milestone: null as unknown,
    comments: 0,
    created_at: at(`02-0${number}`),
    updated_at: at(`02-0${number}`, '11:00:00'),
    closed_at: null as string | null,
    author_association: 'MEMBER',
    active_lock_reason: null as string | null,
    body: `Body of ${number}` as string | null,
    reactions: rollup(`${repoApi}/issues/${number}`, counts),
    state_reason: null as string | null,
    ...fields,
  });
  const pullRef = (number: number) => ({ url: `${repoApi}/pulls/${number}`, html_url: `${html}/pull/${number}`, diff_url: `${html}/pull/${number}.diff`, patch_url: `${html}/pull/${number}.patch`, merged_at: null });
  const issues = [
    issue(1, { title: 'Widgets crash on start', body: 'They crash.', labels: [bug], milestone: v1, assignee: hubot, assignees: [hubot], comments: 3 }, { '+1': 1, heart: 1, hooray: 1 }),
    issue(2, {
      title: 'Typo in README',
      body: 'teh → the',
      user: monalisa,
      labels: [bug, firstIssue],
      milestone: v09,
      state: 'closed',
      state_reason: 'completed',
      locked: true,
      active_lock_reason: 'resolved',
      closed_at: at('02-05'),
      comments: 1,
    }),
    // Its author's account was deleted: GitHub answers null.
    issue(3, { title: 'Old report', body: null, user: null, comments: 1 }, { eyes: 1 }),
    issue(4, { title: 'Blue widgets', user: hubot, labels: [enhancement], comments: 1, pull_request: pullRef(4) }),
    issue(5, { title: 'Add widget', state: 'closed', closed_at: at('02-05', '12:00:00'), pull_request: { ...pullRef(5), merged_at: at('02-05', '12:00:00') } }),
    issue(6, { title: 'Support green widgets', body: 'Green, please.', user: hubot, labels: [enhancement], milestone: v2 }, { rocket: 1 }),
    issue(7, { title: 'Green widgets', body: 'From my fork.', user: hubot, comments: 1, pull_request: pullRef(7) }),
  ];
  const reaction = (id: number, who: ReturnType<typeof user> | null, content: string, created: string) => ({ id, node_id: `REA_${id}`, user: who, content, created_at: created });
  const comment = (id: number, issueNumber: number, who: ReturnType<typeof user> | null, body: string, created: string, counts: Record<string, number> = {}) => ({
    url: `${repoApi}/issues/comments/${id}`,
    html_url: `${html}/issues/${issueNumber}#issuecomment-${id}`,
    issue_url: `${repoApi}/issues/${issueNumber}`,
    id,
    node_id: `IC_${id}`,
    user: who,
    created_at: created,
    updated_at: created,
    author_association: 'MEMBER',
    body,
    reactions: rollup(`${repoApi}/issues/comments/${id}`, counts),
  });
  // hubot's fork of the repository, where pull request #7 comes from.
  const hubotFork = { id: 1296270, node_id: 'R_2', name: GITHUB_REPO, full_name: `hubot/${GITHUB_REPO}`, owner: hubot, private: false, fork: true, html_url: `${url}/hubot/${GITHUB_REPO}`, clone_url: `${url}/hubot/${GITHUB_REPO}.git`, default_branch: 'main' };
  const forkBranch = (ref: string, sha: string) => ({ label: `hubot:${ref}`, ref, sha, user: hubot, repo: hubotFork });
  const branch = (ref: string, sha: string, withRepo: boolean) => ({
    label: `${GITHUB_OWNER}:${ref}`,
    ref,
    sha,
    user: org,
    repo: withRepo
      ? { id: 1296269, node_id: 'R_1', name: GITHUB_REPO, full_name: `${GITHUB_OWNER}/${GITHUB_REPO}`, owner: org, private: false, html_url: html, clone_url: `${html}.git`, default_branch: 'main' }
      : null,
  });
  const pull = (number: number, fields: { head: PullBranch; base: PullBranch } & Record<string, unknown>) => {
    const source = issues.find((item) => item.number === number);
    return {
      url: `${repoApi}/pulls/${number}`,
      id: 1700000 + number,
      node_id: `PR_${number}`,
      html_url: `${html}/pull/${number}`,
      diff_url: `${html}/pull/${number}.diff`,
      patch_url: `${html}/pull/${number}.patch`,
      issue_url: `${repoApi}/issues/${number}`,
      number,
      state: source?.state,
      locked: false,
      title: source?.title,
      user: source?.user,
      body: source?.body,
      labels: source?.labels,
      milestone: null,
      active_lock_reason: null,
      created_at: source?.created_at,
      updated_at: source?.updated_at,
      closed_at: source?.closed_at,
      merged_at: null as string | null,
      merge_commit_sha: null as string | null,
      assignee: null,
      assignees: [],
      requested_reviewers: [] as unknown[],
      requested_teams: [],
      draft: false,
      author_association: 'MEMBER',
      ...fields,
      head: fields.head,
      base: fields.base,
    };
  };
  const reviewComment = (id: number, reviewId: number, who: ReturnType<typeof user>, body: string) => ({
    url: `${repoApi}/pulls/comments/${id}`,
    pull_request_review_id: reviewId,
    id,
    node_id: `PRRC_${id}`,
    diff_hunk: '@@ -1 +1 @@\n-a widget\n+a blue widget',
    path: 'widget.txt',
    position: 2,
    original_position: 2,
    commit_id: shas.feature,
    original_commit_id: shas.feature,
    user: who,
    body,
    created_at: at('02-04', '15:00:00'),
    updated_at: at('02-04', '15:00:00'),
    html_url: `${html}/pull/4#discussion_r${id}`,
    pull_request_url: `${repoApi}/pulls/4`,
    author_association: 'MEMBER',
    start_line: null,
    original_start_line: null,
    start_side: null,
    line: 1,
    original_line: 1,
    side: 'RIGHT',
    reactions: rollup(`${repoApi}/pulls/comments/${id}`, { heart: 1 }),
  });
  return {
    repo: {
      id: 1296269,
      node_id: 'R_1',
      name: GITHUB_REPO,
      full_name: `${GITHUB_OWNER}/${GITHUB_REPO}`,
      owner: org,
      private: false,
      html_url: html,
      description: 'Widgets, in every colour',
      fork: false,
      url: repoApi,
      clone_url: `${html}.git`,
      git_url: `git://${new URL(url).host}/${GITHUB_OWNER}/${GITHUB_REPO}.git`,
      ssh_url: `git@${new URL(url).hostname}:${GITHUB_OWNER}/${GITHUB_REPO}.git`,
      homepage: null,
      size: 1,
      stargazers_count: 0,
      watchers_count: 0,
      language: null,
      has_issues: true,
      has_wiki: false,
      archived: false,
      disabled: false,
      open_issues_count: 3,
      topics: ['widgets', 'colour'],
      visibility: 'public',
      forks: 0,
      open_issues: 3,
      watchers: 0,
      default_branch: 'main',
      created_at: at('01-01'),
      updated_at: at('02-06'),
      pushed_at: at('01-03'),
    },
    topics: { names: ['widgets', 'colour'] },
    labels: [bug, enhancement, firstIssue],
    milestones: [v1, v09, v2],
    releases: [
      {
        url: `${repoApi}/releases/5001`,
        html_url: `${html}/releases/tag/v1.0.0`,
        assets_url: `${repoApi}/releases/5001/assets`,
        upload_url: `${url}/api/uploads/repos/${GITHUB_OWNER}/${GITHUB_REPO}/releases/5001/assets{?name,label}`,
        tarball_url: `${repoApi}/tarball/v1.0.0`,
        zipball_url: `${repoApi}/zipball/v1.0.0`,
        id: 5001,
        node_id: 'RE_5001',
        tag_name: 'v1.0.0',
        // GitHub takes a branch reference as a release's target.
        target_commitish: 'refs/heads/main',
        name: 'Widgets 1.0',
        body: 'The first widgets.',
        draft: false,
        prerelease: false,
        created_at: at('01-02', '12:00:00'),
        published_at: at('01-02', '13:00:00'),
        author: octocat,
        assets: [
          {
            url: `${repoApi}/releases/assets/7001`,
            browser_download_url: `${html}/releases/download/v1.0.0/widgets-1.0.0.tar.gz`,
            id: 7001,
            node_id: 'RA_7001',
            name: 'widgets-1.0.0.tar.gz',
            label: '',
            state: 'uploaded',
            content_type: 'application/gzip',
            size: assetSize,
            download_count: 42,
            created_at: at('01-02', '12:30:00'),
            updated_at: at('01-02', '12:31:00'),
            uploader: octocat,
          },
        ],
      },
    ],
    issues,
    issueReactions: {
      1: [reaction(1, hubot, '+1', at('02-01', '12:00:00')), reaction(2, monalisa, 'heart', at('02-01', '12:01:00')), reaction(3, octocat, 'hooray', at('02-01', '12:02:00'))],
      3: [reaction(4, null, 'eyes', at('02-03', '12:00:00'))],
      4: [reaction(5, monalisa, 'rocket', at('02-04', '12:00:00'))],
      6: [reaction(6, octocat, 'rocket', at('02-06', '12:00:00'))],
    } as Record<number, unknown[]>,
    comments: {
      1: [
        comment(1001, 1, hubot, 'Me too', at('02-01', '13:00:00'), { laugh: 1 }),
        comment(1002, 1, octocat, 'Fixed soon', at('02-01', '14:00:00')),
        comment(1003, 1, monalisa, 'Thanks!', at('02-01', '15:00:00')),
      ],
      2: [comment(1004, 2, octocat, 'Fixed in main.', at('02-02', '13:00:00'))],
      3: [comment(1005, 3, ghost, 'I was here first', at('02-03', '13:00:00'))],
      4: [comment(1006, 4, monalisa, 'Looks good', at('02-04', '13:00:00'))],
      7: [comment(1007, 7, octocat, 'Green it is', at('02-07', '13:00:00'))],
    } as Record<number, unknown[]>,
    commentReactions: { 1001: [reaction(11, octocat, 'laugh', at('02-01', '13:30:00'))] } as Record<number, unknown[]>,
    pulls: [
      pull(4, { head: branch('feature', shas.feature, true), base: branch('main', shas.widget, true), requested_reviewers: [octocat] }),
      pull(5, { head: branch('add-widget', shas.widget, true), base: branch('main', shas.initial, true), merged_at: at('02-05', '12:00:00'), merge_commit_sha: shas.widget }),
      pull(7, { head: forkBranch('hubot-fix', shas.fork), base: branch('main', shas.widget, true) }),
    ],
    reviews: {
      4: [
        { id: 8001, node_id: 'PRR_8001', user: monalisa, body: 'Ship it', state: 'APPROVED', html_url: `${html}/pull/4#pullrequestreview-8001`, pull_request_url: `${repoApi}/pulls/4`, submitted_at: at('02-04', '15:00:00'), commit_id: shas.feature, author_association: 'MEMBER' },
        { id: 8002, node_id: 'PRR_8002', user: null, body: 'Not blue enough', state: 'CHANGES_REQUESTED', html_url: `${html}/pull/4#pullrequestreview-8002`, pull_request_url: `${repoApi}/pulls/4`, submitted_at: at('02-04', '16:00:00'), commit_id: shas.feature, author_association: 'NONE' },
      ],
    } as Record<number, unknown[]>,
    reviewComments: { 8001: [reviewComment(9001, 8001, monalisa, 'Nice colour')] } as Record<number, unknown[]>,
    reviewCommentReactions: { 9001: [reaction(21, hubot, 'heart', at('02-04', '15:30:00'))] } as Record<number, unknown[]>,
    requestedReviewers: { 4: { users: [octocat], teams: [] } } as Record<number, unknown>,
  };
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function startGithubFixture(options: GithubFixtureOptions = {}): Promise<GithubFixture> {
  const perPageCap = options.perPage ?? 2;
  const root = mkdtempSync(path.join(os.tmpdir(), 'github-fixture-'));
  const { projectRoot, shas, patches } = makeGitRepository(root);
  const git = gitHttpBackend(projectRoot);
  const assetBytes = Buffer.from('widgets 1.0.0, gzipped (not really)\n');
  const pendingLimits = new Map(Object.entries(options.rateLimited ?? {}));
  const limited: GithubFixture['limited'] = new Map();
  const requests: GithubFixtureRequest[] = [];
  let connections = 0;
  let remaining = 5000;
  let data: ReturnType<typeof buildData> | undefined;
  let url = '';
  let objectsUrl = '';

  const record = (server: GithubFixtureRequest['server'], request: http.IncomingMessage, target: URL) =>
    requests.push({
      server,
      method: request.method ?? 'GET',
      path: target.pathname,
      query: target.searchParams,
      authorization: request.headers.authorization,
      accept: request.headers.accept,
      at: Date.now(),
    });

  const objects = http.createServer((request, response) => {
    const target = new URL(request.url ?? '/', 'http://objects');
    record('objects', request, target);
    if (target.pathname === '/github-production-release-asset/7001') {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(assetBytes.length) });
      response.end(assetBytes);
      return;
    }
    response.writeHead(404).end();
  });

  const server = http.createServer((request, response) => {
    const target = new URL(request.url ?? '/', 'http://fixture');
    const fixture = data;
    if (fixture === undefined) return void response.writeHead(503).end();
    const repoPrefix = `/${GITHUB_OWNER}/${GITHUB_REPO}`;
    // Git over smart HTTP, with or without `.git` (GitHub answers both): the repository and hubot's fork.
    const gitRepo = /^\/(octo-org|hubot)\/widgets(\.git)?\/(info\/refs|git-upload-pack)$/.exec(target.pathname);
    if (gitRepo !== null) {
      record('api', request, target);
      const prefix = `/${gitRepo[1]}/${GITHUB_REPO}`;
      if (gitRepo[2] === undefined) request.url = `${prefix}.git${(request.url ?? '').slice(prefix.length)}`;
      return git(request, response);
    }
    record('api', request, target);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      remaining = Math.max(remaining - 1, 1);
      response.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'x-github-media-type': 'github.v3; format=json',
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
        'x-ratelimit-resource': 'core',
        ...headers,
      });
      response.end(JSON.stringify(body));
    };
    const patchOf = new RegExp(`^${repoPrefix}/pull/(\\d+)\\.patch$`).exec(target.pathname);
    if (patchOf !== null && patches[Number(patchOf[1])] !== undefined) {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      return response.end(patches[Number(patchOf[1])]);
    }
    if (!target.pathname.startsWith('/api/v3/')) return send(404, { message: 'Not Found' });
    if (options.token !== undefined && ![`Bearer ${options.token}`, `token ${options.token}`].includes(request.headers.authorization ?? '')) {
      return send(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    }
    const limit = pendingLimits.get(target.pathname);
    if (limit !== undefined) {
      pendingLimits.delete(target.pathname);
      const now = Date.now();
      if (limit === 'retry-after') {
        limited.set(target.pathname, { answeredAt: now, until: now + 1000 });
        return send(429, { message: 'You have exceeded a secondary rate limit.', documentation_url: 'https://docs.github.com/rest' }, { 'retry-after': '1' });
      }
      const reset = Math.ceil(now / 1000) + 1;
      limited.set(target.pathname, { answeredAt: now, until: reset * 1000 });
      if (limit === 'quota') {
        return send(403, { message: 'API rate limit exceeded for 127.0.0.1.', documentation_url: 'https://docs.github.com/rest' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) });
      }
      // 'exhausted': this answer is whole, the next request has to wait.
      const exhausted = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) };
      return answer(target, request.headers.accept, fixture, send, exhausted);
    }
    return answer(target, request.headers.accept, fixture, send, {});
  });

  /** The API's answer for one request (its lists paged). */
  function answer(target: URL, accept: string | undefined, fixture: ReturnType<typeof buildData>, send: (status: number, body: unknown, headers?: Record<string, string>) => void, extra: Record<string, string>): void {
    const repoApi = `/api/v3/repos/${GITHUB_OWNER}/${GITHUB_REPO}`;
    const list = (all: readonly unknown[]) => {
      const page = Math.max(1, Number(target.searchParams.get('page') ?? '1') || 1);
      const asked = Number(target.searchParams.get('per_page') ?? '30') || 30;
      const perPage = Math.min(asked, perPageCap);
      const last = Math.max(1, Math.ceil(all.length / perPage));
      const link = (n: number, rel: string) => {
        const query = new URLSearchParams(target.searchParams);
        query.set('per_page', String(perPage));
        query.set('page', String(n));
        return `<${url}${target.pathname}?${query.toString()}>; rel="${rel}"`;
      };
      const links = [...(page > 1 ? [link(page - 1, 'prev')] : []), ...(page < last ? [link(page + 1, 'next'), link(last, 'last')] : []), ...(page > 1 ? [link(1, 'first')] : [])];
      send(200, all.slice((page - 1) * perPage, page * perPage), { ...(links.length > 0 ? { link: links.join(', ') } : {}), ...extra });
    };
    const path = target.pathname;
    let match: RegExpExecArray | null;
    if (path === repoApi) return send(200, fixture.repo, extra);
    if (path === `${repoApi}/topics`) return send(200, fixture.topics, extra);
    if (path === `${repoApi}/labels`) return list(fixture.labels);
    if (path === `${repoApi}/milestones`) return list(fixture.milestones);
    if (path === `${repoApi}/releases`) return list(fixture.releases);
    if (path === `${repoApi}/issues`) return list(fixture.issues);
    if (path === `${repoApi}/pulls`) return list(fixture.pulls);
    if ((match = /\/issues\/(\d+)\/reactions$/.exec(path))) return list(fixture.issueReactions[Number(match[1])] ?? []);
    if ((match = /\/issues\/(\d+)\/comments$/.exec(path))) return list(fixture.comments[Number(match[1])] ?? []);
    if ((match = /\/issues\/comments\/(\d+)\/reactions$/.exec(path))) return list(fixture.commentReactions[Number(match[1])] ?? []);
    if ((match = /\/pulls\/(\d+)\/reviews$/.exec(path))) return list(fixture.reviews[Number(match[1])] ?? []);
    if ((match = /\/pulls\/\d+\/reviews\/(\d+)\/comments$/.exec(path))) return list(fixture.reviewComments[Number(match[1])] ?? []);
    if ((match = /\/pulls\/(\d+)\/requested_reviewers$/.exec(path))) return send(200, fixture.requestedReviewers[Number(match[1])] ?? { users: [], teams: [] }, extra);
    if ((match = /\/pulls\/comments\/(\d+)\/reactions$/.exec(path))) return list(fixture.reviewCommentReactions[Number(match[1])] ?? []);
    if (path === `${repoApi}/releases/assets/7001`) {
      // The asset's bytes are asked for with Accept: application/octet-stream: GitHub redirects to its object store
      // (another host); any other Accept gets the asset's description.
      if (accept === 'application/octet-stream') return send(302, {}, { location: `${objectsUrl}/github-production-release-asset/7001?X-Amz-Signature=fixture`, ...extra });
      return send(200, fixture.releases[0].assets[0], extra);
    }
    return send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
  }

  server.on('connection', () => connections++);
  url = await listen(server);
  objectsUrl = await listen(objects);
  data = buildData(url, shas, assetBytes.length);
  const close = (listener: http.Server) => new Promise<void>((resolve) => listener.close(() => resolve()));
  return {
    url,
    cloneAddr: `${url}/${GITHUB_OWNER}/${GITHUB_REPO}`,
    objectsUrl,
    data,
    shas,
    patches,
    assetBytes,
    limited,
    requests,
    connections: () => connections,
    async close() {
      server.closeAllConnections();
      objects.closeAllConnections();
      await Promise.all([close(server), close(objects)]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
