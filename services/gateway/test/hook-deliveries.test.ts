/**
 * The delivery-history routes (a Cairn departure): repository admins list a hook's deliveries and redeliver one
 * (202); others get Gitea's guards; DISABLE_WEB_HOOKS answers 403 `webhooks disabled by administrator`.
 */
import type { HookDelivery, ListHookDeliveriesRequest, RedeliverHookDeliveryRequest } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import { HookScope } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import { CairnError } from '@cairn/rpc';
import type { HookDeliveriesClient } from '../src/clients';
import { FakeAccounts } from './support/fake-accounts';
import { FakeRepos, permission, repository } from './support/fake-repos';
import { type TestGateway, basic, startTestGateway } from './support/harness';

const UUID = '6c1f3a2e-8a57-4c2b-9d55-0a3c6f1b2e11';
const NEW_UUID = '9b0d5f7a-1c2e-4f3a-8b6d-2e4f6a8c0d12';

function delivery(fields: Partial<HookDelivery>): HookDelivery {
  return {
    id: 1,
    uuid: UUID,
    hookId: 5,
    event: 'issues',
    eventType: 'issue_label',
    state: 'delivered',
    isSucceed: true,
    attempts: 2,
    requestJson: JSON.stringify({ url: 'https://ci.example.com/hook', http_method: 'POST', headers: { 'X-Gitea-Delivery': UUID } }),
    responseJson: JSON.stringify({ status: 200, headers: {}, body: 'ok' }),
    payloadJson: JSON.stringify({ action: 'label_updated' }),
    created: new Date('2026-11-28T10:00:00Z'),
    delivered: new Date('2026-11-28T10:00:05Z'),
    redeliveryOf: '',
    ...fields,
  };
}

describe('hook delivery history', () => {
  let gw: TestGateway;
  const listed: ListHookDeliveriesRequest[] = [];
  const redelivered: RedeliverHookDeliveryRequest[] = [];

  async function start(env: Record<string, string> = {}) {
    const accounts = new FakeAccounts();
    const repos = new FakeRepos();
    const alice = accounts.addUser('alice', { password: 'alice-password' });
    accounts.addUser('bob', { password: 'bob-password' });
    accounts.clients.repos = repos.client;
    accounts.clients.hookDeliveries = {
      listHookDeliveries: async (request: ListHookDeliveriesRequest) => {
        listed.push(request);
        if (request.hookId !== 5) throw CairnError.notFound('hook does not exist', { reason: 'hook_not_found' });
        return { deliveries: [delivery({})], total: 3 };
      },
      redeliverHookDelivery: async (request: RedeliverHookDeliveryRequest) => {
        redelivered.push(request);
        if (request.uuid !== UUID) throw CairnError.notFound('hook delivery does not exist', { reason: 'hook_delivery_not_found' });
        return { delivery: delivery({ id: 2, uuid: NEW_UUID, state: 'pending', isSucceed: false, attempts: 0, requestJson: '', responseJson: '', delivered: undefined, redeliveryOf: UUID }) };
      },
    } as unknown as HookDeliveriesClient;
    repos.add(repository(10, 'alice', 'demo', { ownerId: alice.id }), (viewer) => (viewer?.userId === alice.id ? permission('owner') : permission('read')));
    gw = await startTestGateway({ accounts, env });
  }

  afterEach(async () => {
    listed.length = 0;
    redelivered.length = 0;
    await gw?.close();
  });

  const ALICE = { Authorization: basic('alice', 'alice-password') };

  it("lists a repository hook's deliveries for its admin, with paging headers", async () => {
    await start();
    const res = await gw.fetch('/api/v1/repos/alice/demo/hooks/5/deliveries?page=1&limit=1', { headers: ALICE });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe('3');
    expect(await res.json()).toEqual([
      {
        id: 1,
        uuid: UUID,
        hook_id: 5,
        event: 'issues',
        event_type: 'issue_label',
        state: 'delivered',
        is_succeed: true,
        attempts: 2,
        request: { url: 'https://ci.example.com/hook', http_method: 'POST', headers: { 'X-Gitea-Delivery': UUID } },
        response: { status: 200, headers: {}, body: 'ok' },
        payload: { action: 'label_updated' },
        created_at: '2026-11-28T10:00:00.000Z',
        delivered_at: '2026-11-28T10:00:05.000Z',
        redelivery_of: null,
      },
    ]);
    expect(listed).toEqual([{ owner: { scope: HookScope.HOOK_SCOPE_REPOSITORY, repoId: 10, ownerId: 0 }, hookId: 5, page: 1, limit: 1 }]);
  });

  it('redelivers (202) as a new delivery pointing at the old one', async () => {
    await start();
    const res = await gw.fetch(`/api/v1/repos/alice/demo/hooks/5/deliveries/${UUID}/attempts`, { method: 'POST', headers: ALICE });
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ uuid: NEW_UUID, redelivery_of: UUID, state: 'pending', request: null, response: null, delivered_at: null });
    expect(redelivered).toEqual([{ owner: { scope: HookScope.HOOK_SCOPE_REPOSITORY, repoId: 10, ownerId: 0 }, hookId: 5, uuid: UUID }]);
  });

  it("answers 404 for another scope's hook or an unknown delivery, 403 to a non-admin, 401 anonymously", async () => {
    await start();
    expect((await gw.fetch('/api/v1/repos/alice/demo/hooks/6/deliveries', { headers: ALICE })).status).toBe(404);
    expect((await gw.fetch(`/api/v1/repos/alice/demo/hooks/5/deliveries/${NEW_UUID}/attempts`, { method: 'POST', headers: ALICE })).status).toBe(404);
    expect((await gw.fetch('/api/v1/repos/alice/demo/hooks/5/deliveries', { headers: { Authorization: basic('bob', 'bob-password') } })).status).toBe(403);
    expect((await gw.fetch('/api/v1/repos/alice/demo/hooks/5/deliveries')).status).toBe(401);
  });

  it('answers 403 `webhooks disabled by administrator` when DISABLE_WEB_HOOKS is set', async () => {
    await start({ CAIRN__SECURITY__DISABLE_WEB_HOOKS: 'true' });
    const res = await gw.fetch('/api/v1/repos/alice/demo/hooks/5/deliveries', { headers: ALICE });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: 'webhooks disabled by administrator', url: 'http://localhost:3000/api/swagger' });
    expect(listed).toEqual([]);
  });

  it('lists a user hook of the caller only', async () => {
    await start();
    const res = await gw.fetch('/api/v1/user/hooks/5/deliveries', { headers: ALICE });
    expect(res.status).toBe(200);
    expect(listed[0].owner).toMatchObject({ scope: HookScope.HOOK_SCOPE_USER, ownerId: expect.any(Number) });
  });

  it('lists system hook deliveries for site admins only', async () => {
    await start();
    expect((await gw.fetch('/api/v1/admin/hooks/5/deliveries', { headers: ALICE })).status).toBe(403);
  });
});
