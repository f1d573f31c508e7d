/**
 * What the issue list remembers between requests (`repo.reuse: 'anonymous'`, cache/public-users.ts): an anonymous
 * caller's list asks repos and accounts once while events keep the gateway's memory honest, asks again after any
 * repository or user event, and never reuses a signed-in caller's repository or posters. Without events nothing is
 * remembered.
 */
import { encodeEvent } from '@cairn/bus';
import { UserUpdated } from '@cairn/proto/cairn/accounts/v1/events';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { Issue, ListIssuesRequest } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { AttachmentsClient, IssuesClient } from '../src/clients';
import { FakeAccounts } from './support/fake-accounts';
import { FakeBroadcastBus } from './support/fake-bus';
import { FakeRepos, permission, repository } from './support/fake-repos';
import { type TestGateway, basic, startTestGateway } from './support/harness';

function seed() {
  const accounts = new FakeAccounts();
  const repos = new FakeRepos();
  const alice = accounts.addUser('alice', { password: 'alice-password' });
  accounts.clients.repos = repos.client;
  accounts.clients.attachments = { batchListAttachments: async () => ({ attachments: [] }) } as unknown as AttachmentsClient;
  const listed: ListIssuesRequest[] = [];
  const issue = { id: 1, repoId: 10, index: 1, posterId: alice.id, assigneeIds: [alice.id], labels: [], title: 'one', created: new Date(0), updated: new Date(0) } as unknown as Issue;
  accounts.clients.issues = {
    listIssues: async (request: ListIssuesRequest) => {
      listed.push(request);
      return { issues: [issue], total: 1 };
    },
  } as unknown as IssuesClient;
  repos.add(repository(10, 'alice', 'demo', { ownerId: alice.id }), (viewer: Actor | undefined) => (viewer?.userId === alice.id ? permission('owner') : permission('read')));
  return { accounts, repos, alice, listed };
}

describe('the issue list’s memory', () => {
  let s: ReturnType<typeof seed>;
  let bus: FakeBroadcastBus;
  let gw: TestGateway;
  beforeEach(async () => {
    s = seed();
    bus = new FakeBroadcastBus();
    gw = await startTestGateway({ accounts: s.accounts, bus });
  });
  afterEach(() => gw.close());

  const list = async (headers: Record<string, string> = {}) => {
    const res = await gw.fetch('/api/v1/repos/alice/demo/issues', { headers });
    expect(res.status).toBe(200);
    return (await res.json()) as Array<{ user: { login: string; full_name: string } }>;
  };

  it('asks repos and accounts once for anonymous callers, until an event', async () => {
    const first = await list();
    expect(await list()).toEqual(first);
    expect(s.repos.calls('getRepository')).toHaveLength(1);
    expect(s.accounts.calls.batchGetUsers).toBe(1);
    expect(s.listed).toHaveLength(2);

    // alice changes her profile: her next anonymous list shows it.
    s.accounts.setUser(s.alice.id, { fullName: 'Alice Liddell' });
    await bus.publishEvent('cairn.user.updated', encodeEvent(UserUpdated, { meta: undefined, user: s.accounts.users.get(s.alice.id), changed: ['full_name'], version: 0 }));
    expect((await list())[0].user.full_name).toBe('Alice Liddell');
    expect(s.accounts.calls.batchGetUsers).toBe(2);
    // A user event may change an owner's visibility: repos is asked again too.
    expect(s.repos.calls('getRepository')).toHaveLength(2);

    await bus.publishEvent('cairn.repo.updated', new Uint8Array());
    await list();
    expect(s.repos.calls('getRepository')).toHaveLength(3);
    expect(s.accounts.calls.batchGetUsers).toBe(2);
  });

  it('asks repos, and accounts for the posters, on every signed-in request', async () => {
    const alice = { Authorization: basic('alice', 'alice-password') };
    await list(alice);
    await list(alice);
    expect(s.repos.calls('getRepository')).toHaveLength(2);
    // Posters shaped for alice each time; the assignees (shaped as for anyone) once.
    expect(s.accounts.calls.batchGetUsers).toBe(3);
  });
});

it('remembers nothing without events to keep it honest', async () => {
  const s = seed();
  const gw = await startTestGateway({ accounts: s.accounts });
  try {
    await gw.fetch('/api/v1/repos/alice/demo/issues');
    await gw.fetch('/api/v1/repos/alice/demo/issues');
    expect(s.repos.calls('getRepository')).toHaveLength(2);
    expect(s.accounts.calls.batchGetUsers).toBe(2);
  } finally {
    await gw.close();
  }
});
