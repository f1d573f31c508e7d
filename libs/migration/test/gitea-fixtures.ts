/**
 * A small repository as Gitea's API v1 answers it (shapes of /work/shared/reference/gitea-api-v1.json: Repository,
 * TopicName, Milestone, Label, Release, Attachment, Issue, Comment, Reaction), served by a loopback server that pages
 * lists as Gitea does (page/limit, X-Total-Count, Link) and counts its connections.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

const alice = { id: 1, login: 'alice', full_name: 'Alice', email: 'alice@example.com', avatar_url: '', username: 'alice' };
// A user whose e-mail the source hides (keep_email_private): Gitea answers "".
const bob = { id: 2, login: 'bob', full_name: '', email: '', avatar_url: '', username: 'bob' };
const carol = { id: 3, login: 'carol', full_name: '', email: 'carol@example.com', avatar_url: '', username: 'carol' };

const bug = { id: 11, name: 'bug', color: 'ee0701', description: 'Something is broken', exclusive: false, is_archived: false, url: '' };
const priority = { id: 12, name: 'priority/high', color: '#b60205', description: '', exclusive: true, is_archived: false, url: '' };
const v1 = {
  id: 21,
  title: 'v1.0',
  description: 'First release',
  state: 'open',
  open_issues: 1,
  closed_issues: 1,
  created_at: '2024-01-02T10:00:00Z',
  updated_at: '2024-01-03T10:00:00Z',
  closed_at: null,
  due_on: '2024-06-30T00:00:00Z',
};
const v0 = {
  id: 22,
  title: 'v0.9',
  description: '',
  state: 'closed',
  open_issues: 0,
  closed_issues: 0,
  created_at: '2023-11-01T09:00:00+01:00',
  updated_at: '2023-12-01T09:00:00+01:00',
  closed_at: '2023-12-01T09:00:00+01:00',
  due_on: null,
};

function issue(number: number, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    id: 100 + number,
    url: '',
    html_url: '',
    number,
    user: alice,
    original_author: '',
    original_author_id: 0,
    title: `Issue ${number}`,
    body: `Body of ${number}`,
    ref: '',
    assets: [],
    labels: [],
    milestone: null,
    assignee: null,
    assignees: null,
    state: 'open',
    is_locked: false,
    comments: 0,
    created_at: `2024-02-0${number}T08:00:00Z`,
    updated_at: `2024-02-0${number}T09:00:00Z`,
    closed_at: null,
    due_date: null,
    pull_request: null,
    repository: { id: 1, name: 'tools', owner: 'alice', full_name: 'alice/tools' },
    pin_order: 0,
    ...fields,
  };
}

export const fixtures = {
  version: { version: '1.26.3+cairn-0.1.0' },
  repo: {
    id: 1,
    owner: alice,
    name: 'tools',
    full_name: 'alice/tools',
    description: 'Handy tools',
    private: false,
    mirror: false,
    html_url: 'http://source.example/alice/tools',
    clone_url: 'http://source.example/alice/tools.git',
    default_branch: 'main',
  },
  topics: { topics: ['cli', 'tools'] },
  milestones: [v1, v0],
  labels: [bug, priority],
  releases: [
    {
      id: 31,
      tag_name: 'v1.0.0',
      target_commitish: 'main',
      name: 'Version 1',
      body: 'Notes',
      url: '',
      html_url: '',
      tarball_url: '',
      zipball_url: '',
      upload_url: '',
      draft: false,
      prerelease: true,
      created_at: '2024-03-01T12:00:00Z',
      published_at: '2024-03-02T12:00:00Z',
      author: carol,
      assets: [
        {
          id: 41,
          name: 'tools.tar.gz',
          size: 1234,
          download_count: 7,
          created_at: '2024-03-01T12:30:00Z',
          uuid: 'a1b2',
          browser_download_url: 'http://source.example/attachments/a1b2',
        },
      ],
    },
  ],
  // Gitea lists the newest first.
  issues: [
    issue(3, { labels: [bug], assignees: [bob, carol], milestone: v1 }),
    issue(2, { user: bob, state: 'closed', is_locked: true, closed_at: '2024-02-05T10:00:00Z', labels: [bug, priority], milestone: v0, ref: 'refs/heads/fix' }),
    issue(1, { user: { id: -1, login: 'Ghost', email: '' }, original_author: 'dora', original_author_id: 9001 }),
  ],
  issueReactions: {
    3: [
      { user: bob, content: '+1', created_at: '2024-02-03T10:00:00Z' },
      { user: carol, content: 'heart', created_at: '2024-02-03T11:00:00Z' },
    ],
  } as Record<number, unknown[]>,
  comments: {
    3: [
      { id: 51, html_url: '', issue_url: '', pull_request_url: '', user: bob, original_author: '', original_author_id: 0, body: 'Me too', assets: [], created_at: '2024-02-03T12:00:00Z', updated_at: '2024-02-03T12:05:00Z' },
      { id: 52, html_url: '', issue_url: '', pull_request_url: '', user: alice, original_author: '', original_author_id: 0, body: 'Fixed soon', assets: [], created_at: '2024-02-04T12:00:00Z', updated_at: '2024-02-04T12:00:00Z' },
    ],
    1: [{ id: 53, html_url: '', issue_url: '', pull_request_url: '', user: { id: -1, login: 'Ghost', email: '' }, original_author: 'erin', original_author_id: 77, body: 'Old', assets: [], created_at: '2024-02-01T10:00:00Z', updated_at: '2024-02-01T10:00:00Z' }],
  } as Record<number, unknown[]>,
  commentReactions: { 51: [{ user: carol, content: 'laugh', created_at: '2024-02-03T13:00:00Z' }] } as Record<number, unknown[]>,
};

/** The repository-wide comment list: every issue's comments oldest first, each naming its issue, and one on pull 4. */
function repoComments(): unknown[] {
  const onIssues = Object.entries(fixtures.comments).flatMap(([number, list]) =>
    list.map((comment): Record<string, unknown> => ({ ...(comment as Record<string, unknown>), issue_url: `http://source.example/alice/tools/issues/${number}` })),
  );
  const onPull: Record<string, unknown> = { ...(fixtures.comments[1][0] as Record<string, unknown>), id: 54, body: 'On the pull', created_at: '2024-02-05T10:00:00Z', pull_request_url: 'http://source.example/alice/tools/pulls/4' };
  return [...onIssues, onPull].sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)));
}

export interface FixtureServer {
  url: string;
  /** Connections accepted so far. */
  connections(): number;
  /** Every request's method, path and query, and its Authorization header. */
  requests: { path: string; query: URLSearchParams; authorization: string | undefined }[];
  close(): Promise<void>;
}

export interface FixtureOptions {
  /** The source's MAX_RESPONSE_ITEMS (`/settings/api`). */
  maxItems?: number;
  /** Answers that come first for a path, before the fixtures (e.g. a 429). */
  before?: Record<string, { status: number; headers?: Record<string, string>; body: unknown }[]>;
  /** A sub-path the API lives under (a ROOT_URL with a path). */
  root?: string;
}

function pageOf(list: unknown[], query: URLSearchParams, maxItems: number): { items: unknown[]; total: number; page: number; limit: number } {
  const page = Math.max(1, Number(query.get('page') ?? '1') || 1);
  const asked = Number(query.get('limit') ?? '0') || 30;
  const limit = Math.min(asked, maxItems);
  return { items: list.slice((page - 1) * limit, page * limit), total: list.length, page, limit };
}

export async function startFixtureServer(options: FixtureOptions = {}): Promise<FixtureServer> {
  const maxItems = options.maxItems ?? 50;
  const root = options.root ?? '';
  const before = Object.fromEntries(Object.entries(options.before ?? {}).map(([path, answers]) => [path, [...answers]]));
  const requests: FixtureServer['requests'] = [];
  let connections = 0;
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fixture');
    requests.push({ path: url.pathname, query: url.searchParams, authorization: request.headers.authorization });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
    };
    const list = (all: unknown[]) => {
      const { items, total, page, limit } = pageOf(all, url.searchParams, maxItems);
      const last = Math.max(1, Math.ceil(total / limit));
      const link = (n: number, rel: string) => `<http://fixture${url.pathname}?limit=${limit}&page=${n}>; rel="${rel}"`;
      const links = [...(page < last ? [link(page + 1, 'next'), link(last, 'last')] : []), ...(page > 1 ? [link(1, 'first'), link(page - 1, 'prev')] : [])];
      send(200, items, { 'x-total-count': String(total), ...(links.length > 0 ? { link: links.join(',') } : {}) });
    };
    const queued = before[url.pathname]?.shift();
    if (queued !== undefined) return send(queued.status, queued.body, queued.headers);
    if (!url.pathname.startsWith(`${root}/api/v1/`)) return send(404, { message: 'not found' });
    const path = url.pathname.slice(`${root}/api/v1`.length);
    let match: RegExpExecArray | null;
    if (path === '/version') return send(200, fixtures.version);
    if (path === '/settings/api') return send(200, { max_response_items: maxItems, default_paging_num: 30, default_git_trees_per_page: 1000, default_max_blob_size: 10485760, default_max_response_size: 104857600 });
    if (path === '/repos/alice/tools') return send(200, fixtures.repo);
    if (path === '/repos/alice/tools/topics') return send(200, fixtures.topics);
    if (path === '/repos/alice/tools/milestones') return list(fixtures.milestones);
    if (path === '/repos/alice/tools/labels') return list(fixtures.labels);
    if (path === '/repos/alice/tools/releases') return list(fixtures.releases);
    if (path === '/repos/alice/tools/issues') return list(fixtures.issues);
    if (path === '/repos/alice/tools/pulls') return list([]);
    if ((match = /^\/repos\/alice\/tools\/issues\/(\d+)\/reactions$/.exec(path))) return send(200, fixtures.issueReactions[Number(match[1])] ?? []);
    if (path === '/repos/alice/tools/issues/comments') return list(repoComments());
    if ((match = /^\/repos\/alice\/tools\/issues\/(\d+)\/comments$/.exec(path))) return list(fixtures.comments[Number(match[1])] ?? []);
    if ((match = /^\/repos\/alice\/tools\/issues\/comments\/(\d+)\/reactions$/.exec(path))) return send(200, fixtures.commentReactions[Number(match[1])] ?? []);
    return send(404, { message: 'The target couldn\'t be found.', errors: [] });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
