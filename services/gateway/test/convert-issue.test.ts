/**
 * toApiIssues (libs/gitea-json/src/issue.ts) on its own: one accounts call per shaping (one for an anonymous caller), posters
 * shaped for the viewer and assignees as anonymous, Ghost for a gone poster, labels under their repository or
 * organization, and the same JSON as converting each issue on its own (users, labels and milestones are converted
 * once per list and shared).
 */
import { goJson } from '@cairn/http';
import { type BatchGetUsersRequest, User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Issue, Label, Milestone } from '@cairn/proto/cairn/issues/v1/issues_service';
import { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { GatewayServices } from '../src/api/types';
import { Attachment, type BatchListAttachmentsRequest } from '@cairn/proto/cairn/repos/v1/releases_service';
import { toApiIssue, toApiIssues } from '@cairn/gitea-json';
import { testConfig } from './support/config';
import { unusedClient } from './support/unused-client';

const config = testConfig();
const ROOT = config.server.rootUrl;
const VIEWER: Actor = { userId: 5, isAdmin: false, isRestricted: false };

function user(id: number, login: string): User {
  return User.fromPartial({
    id,
    login,
    fullName: `${login} full`,
    email: `${login}@example.com`,
    lastLogin: new Date(0),
    created: new Date('2024-01-02T03:04:05Z'),
    active: true,
    visibility: 'public',
  });
}

const USERS = new Map([5, 6, 7].map((id) => [id, user(id, `user${id}`)]));

/** repos' attachments: one on issue 104 and a comment's (never an issue's asset). */
const ATTACHMENTS: Attachment[] = [
  Attachment.fromPartial({ id: 1, uuid: 'a0000000-0000-4000-8000-000000000001', repoId: 1, issueId: 104, name: 'log.txt', size: 3, created: new Date('2024-02-03T00:00:00Z') }),
  Attachment.fromPartial({ id: 2, uuid: 'a0000000-0000-4000-8000-000000000002', repoId: 1, issueId: 104, commentId: 7, name: 'c.txt', size: 1, created: new Date('2024-02-03T00:00:00Z') }),
];

/** accounts' shaping, reduced to what tells the two apart: a caller sees only placeholder e-mails of others. */
function fakeServices(calls: BatchGetUsersRequest[], attachmentCalls: BatchListAttachmentsRequest[] = []): GatewayServices {
  const users = {
    batchGetUsers: async (request: BatchGetUsersRequest) => {
      calls.push(request);
      return {
        users: request.ids.flatMap((id) => {
          const found = USERS.get(id);
          if (found === undefined) return [];
          return [request.viewer?.userId === id ? found : { ...found, email: `${id}+hidden@noreply.example` }];
        }),
      };
    },
  };
  const attachments = {
    batchListAttachments: async (request: BatchListAttachmentsRequest) => {
      attachmentCalls.push(request);
      return { attachments: ATTACHMENTS.filter((one) => request.issueIds.includes(one.issueId) || request.commentIds.includes(one.commentId)) };
    },
  };
  return { config, clients: { users, attachments }, logger: unusedClient('logger'), tokenCache: unusedClient('tokenCache') } as unknown as GatewayServices;
}

const repository = Repository.fromPartial({ id: 1, ownerId: 50, ownerName: 'Org Name', name: 'repo one' });
const other = Repository.fromPartial({ id: 2, ownerId: 50, ownerName: 'Org Name', name: 'two' });

function label(id: number, name: string, orgId = 0): Label {
  return { id, repoId: orgId > 0 ? 0 : 1, orgId, name, color: '#ee0701', description: '', exclusive: false, isArchived: false };
}

const MILESTONE: Milestone = {
  id: 9,
  repoId: 1,
  title: 'v1',
  description: '',
  state: 'closed',
  openIssues: 1,
  closedIssues: 2,
  created: new Date('2024-01-01T00:00:00Z'),
  updated: new Date('2024-01-02T00:00:00Z'),
  closedAt: new Date('2024-01-03T00:00:00Z'),
  dueOn: undefined,
};

function issue(index: number, fields: Partial<Issue> = {}): Issue {
  return {
    id: 100 + index,
    repoId: 1,
    index,
    posterId: 5,
    title: `issue ${index}`,
    body: 'a < b',
    ref: '',
    isClosed: false,
    isPull: false,
    isLocked: false,
    labels: [],
    milestone: undefined,
    assigneeIds: [],
    numComments: 0,
    contentVersion: 0,
    created: new Date('2024-02-01T00:00:00Z'),
    updated: new Date('2024-02-02T00:00:00Z'),
    closedAt: undefined,
    deadline: undefined,
    timeEstimate: 0,
    pinOrder: 0,
    originalAuthor: '',
    originalAuthorId: 0,
    ...fields,
  };
}

const ISSUES: Issue[] = [
  issue(4, { labels: [label(1, 'bug'), label(3, 'org wide', 50)], milestone: MILESTONE, assigneeIds: [5, 6] }),
  issue(3, { posterId: 6, labels: [label(1, 'bug')], milestone: MILESTONE, assigneeIds: [6, 404], isPull: true }),
  issue(2, { posterId: 404 }),
  issue(1, { repoId: 2, labels: [label(3, 'org wide', 50)] }),
];
const REPOSITORIES = new Map([
  [1, repository],
  [2, other],
]);

describe('toApiIssues', () => {
  test('a signed-in caller: posters shaped for them, assignees as anonymous, one call each', async () => {
    const calls: BatchGetUsersRequest[] = [];
    const [first, second] = await toApiIssues(fakeServices(calls), VIEWER, ISSUES, REPOSITORIES);
    expect(calls.map((call) => [call.ids, call.viewer?.userId])).toEqual([
      [[5, 6, 404], 5],
      [[5, 6, 404], undefined],
    ]);
    expect(first.user.email).toBe('user5@example.com');
    expect(first.assignees?.map((assignee) => assignee.email)).toEqual(['5+hidden@noreply.example', '6+hidden@noreply.example']);
    expect(second.user.email).toBe('6+hidden@noreply.example');
    // An assignee whose account is gone is left out.
    expect(second.assignees?.map((assignee) => assignee.id)).toEqual([6]);
  });

  test('an anonymous caller: one call for posters and assignees', async () => {
    const calls: BatchGetUsersRequest[] = [];
    const [first] = await toApiIssues(fakeServices(calls), undefined, ISSUES, REPOSITORIES);
    expect(calls.map((call) => [call.ids, call.viewer])).toEqual([[[5, 6, 404], undefined]]);
    expect(first.user.email).toBe('5+hidden@noreply.example');
    expect(first.assignee).toEqual(first.user);
  });

  test('a gone poster is Ghost; labels live under their repository or organization; addresses and repository meta', async () => {
    const [first, second, third, fourth] = await toApiIssues(fakeServices([]), VIEWER, ISSUES, REPOSITORIES);
    expect([third.user.id, third.user.login]).toEqual([-1, 'Ghost']);
    expect(first.labels.map((apiLabel) => apiLabel.url)).toEqual([
      `${ROOT}api/v1/repos/Org%20Name/repo%20one/labels/1`,
      `${ROOT}api/v1/orgs/Org%20Name/labels/3`,
    ]);
    expect(first.labels[0].color).toBe('ee0701');
    expect(fourth.labels.map((apiLabel) => apiLabel.url)).toEqual([`${ROOT}api/v1/orgs/Org%20Name/labels/3`]);
    expect([first.url, first.html_url]).toEqual([`${ROOT}api/v1/repos/Org%20Name/repo%20one/issues/4`, `${ROOT}Org%20Name/repo%20one/issues/4`]);
    expect([second.html_url, second.pull_request?.html_url]).toEqual([`${ROOT}Org%20Name/repo%20one/pulls/3`, `${ROOT}Org%20Name/repo%20one/pulls/3`]);
    expect(fourth.repository).toEqual({ id: 2, name: 'two', owner: 'Org Name', full_name: 'Org Name/two' });
    expect(first.milestone).toMatchObject({ id: 9, state: 'closed', closed_at: '2024-01-03T00:00:00Z' });
  });

  test('assets: the issues’ own attachments, asked once for the page as the viewer', async () => {
    const attachmentCalls: BatchListAttachmentsRequest[] = [];
    const [first, second] = await toApiIssues(fakeServices([], attachmentCalls), VIEWER, ISSUES, REPOSITORIES);
    expect(attachmentCalls).toEqual([{ viewer: VIEWER, issueIds: [104, 103, 102, 101], commentIds: [] }]);
    expect(first.assets).toEqual([
      {
        id: 1,
        name: 'log.txt',
        size: 3,
        download_count: 0,
        created_at: '2024-02-03T00:00:00Z',
        uuid: 'a0000000-0000-4000-8000-000000000001',
        browser_download_url: `${ROOT}attachments/a0000000-0000-4000-8000-000000000001`,
      },
    ]);
    expect(second.assets).toEqual([]);
  });

  test('the list is written as each issue converted on its own would be', async () => {
    for (const viewer of [VIEWER, undefined]) {
      const listed = await toApiIssues(fakeServices([]), viewer, ISSUES, REPOSITORIES);
      const single = await Promise.all(
        ISSUES.map((one) => toApiIssue(fakeServices([]), viewer, one, REPOSITORIES.get(one.repoId) ?? repository)),
      );
      expect(goJson(listed)).toBe(goJson(single));
    }
  });
});
