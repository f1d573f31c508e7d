/**
 * Imports (POST /repos/migrate) end to end: a repository of the same instance, served over smart HTTP by its clone
 * URL, imported with `[migrations] ALLOW_LOCALNETWORKS = true` and compared through the API; a private source with
 * credentials, and a wrong password (422 Authentication failed); a taken name (409); the migration status
 * extension; and, on an instance with the default host policy, a loopback source refused with 422 before anything
 * connects to it (a counting listener sees no connection), DISABLE_MIGRATIONS answered after the host check.
 */
import net from 'node:net';
import { type Fixture, USER_PASSWORD, startFixture } from './support/fixture';

jest.setTimeout(240_000);

type Json = Record<string, unknown>;

/** A loopback listener that counts the connections made to it and answers none. */
async function countingListener(host: string): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    connections: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('POST /repos/migrate from a local git server (ALLOW_LOCALNETWORKS)', () => {
  let fixture: Fixture;
  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fixture.api.request<Json>(method, `/api/v1${path}`, { headers, body });

  beforeAll(async () => {
    fixture = await startFixture('e2e_migrate', ['alice', 'bob'], { CAIRN__migrations__ALLOW_LOCALNETWORKS: 'true' });
    const alice = fixture.as('alice');
    expect((await call('POST', '/user/repos', alice, { name: 'source', auto_init: true, default_branch: 'trunk' })).status).toBe(201);
    expect((await call('POST', '/repos/alice/source/branches', alice, { new_branch_name: 'feature', old_branch_name: 'trunk' })).status).toBe(201);
    expect((await call('POST', '/repos/alice/source/tags', alice, { tag_name: 'v1.0', target: 'trunk' })).status).toBe(201);
    expect((await call('POST', '/user/repos', alice, { name: 'secret', auto_init: true, private: true })).status).toBe(201);
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  const names = (list: Json[]) => list.map((entry) => entry.name).sort();
  const commitOf = (list: Json[], name: string) => (list.find((entry) => entry.name === name)?.commit as Json | undefined)?.id ?? (list.find((entry) => entry.name === name)?.commit as Json | undefined)?.sha;

  it('imports every branch and tag, the source HEAD as default branch, original_url without credentials', async () => {
    const bob = fixture.as('bob');
    const cloneAddr = `${fixture.instance.httpUrl}/alice/source.git`;
    const migrated = await call('POST', '/repos/migrate', bob, { clone_addr: cloneAddr, repo_name: 'copy', service: 'git', description: 'imported' });
    expect(migrated.status).toBe(201);
    expect(migrated.body).toMatchObject({ full_name: 'bob/copy', empty: false, mirror: false, default_branch: 'trunk', original_url: cloneAddr, description: 'imported' });

    const [sourceBranches, copyBranches] = await Promise.all([call('GET', '/repos/alice/source/branches', bob), call('GET', '/repos/bob/copy/branches', bob)]);
    expect(names(copyBranches.body as unknown as Json[])).toEqual(names(sourceBranches.body as unknown as Json[]));
    for (const branch of ['trunk', 'feature']) {
      expect(commitOf(copyBranches.body as unknown as Json[], branch)).toBe(commitOf(sourceBranches.body as unknown as Json[], branch));
    }
    const [sourceTags, copyTags] = await Promise.all([call('GET', '/repos/alice/source/tags', bob), call('GET', '/repos/bob/copy/tags', bob)]);
    expect(names(copyTags.body as unknown as Json[])).toEqual(['v1.0']);
    expect(commitOf(copyTags.body as unknown as Json[], 'v1.0')).toBe(commitOf(sourceTags.body as unknown as Json[], 'v1.0'));

    // The migration status (Cairn's extension of Gitea's /user/task/{id}).
    const status = await fetch(`${fixture.instance.httpUrl}/api/v1/repos/bob/copy/migration`, { headers: bob });
    expect(status.status).toBe(200);
    const body = (await status.json()) as Json;
    expect(Object.keys(body).sort()).toEqual(['end', 'message', 'repo-id', 'repo-name', 'start', 'status']);
    expect(body).toMatchObject({ status: 4, message: '', 'repo-id': (migrated.body as Json).id, 'repo-name': 'bob/copy' });
    expect(typeof body.start).toBe('number');
    expect(body.end as number).toBeGreaterThanOrEqual(body.start as number);
    // Only those who may read the repository see it.
    expect((await fetch(`${fixture.instance.httpUrl}/api/v1/repos/bob/copy/migration`)).status).toBe(200);
  });

  it('imports a private source with credentials and answers 422 Authentication failed for a wrong password', async () => {
    const bob = fixture.as('bob');
    const cloneAddr = `${fixture.instance.httpUrl}/alice/secret.git`;
    const good = await call('POST', '/repos/migrate', bob, { clone_addr: cloneAddr, repo_name: 'secret-copy', auth_username: 'alice', auth_password: USER_PASSWORD, private: true });
    expect(good.status).toBe(201);
    expect(good.body).toMatchObject({ empty: false, private: true, original_url: cloneAddr });
    expect(JSON.stringify(good.body)).not.toContain(USER_PASSWORD);

    const bad = await call('POST', '/repos/migrate', bob, { clone_addr: cloneAddr, repo_name: 'secret-bad', auth_username: 'alice', auth_password: 'wrong-password' });
    expect(bad.status).toBe(422);
    expect(String((bad.body as Json).message)).toMatch(/^Authentication failed: /);
    expect(String((bad.body as Json).message)).not.toContain('wrong-password');
    // The failed import's repository is gone, as Gitea deletes it.
    expect((await call('GET', '/repos/bob/secret-bad', bob)).status).toBe(404);
  });

  it('answers 409 for a taken name, 422 for an unknown owner and a local path, 403 for another user as owner', async () => {
    const bob = fixture.as('bob');
    const cloneAddr = `${fixture.instance.httpUrl}/alice/source.git`;
    const taken = await call('POST', '/repos/migrate', bob, { clone_addr: cloneAddr, repo_name: 'copy' });
    expect(taken).toMatchObject({ status: 409, body: { message: 'The repository with the same name already exists.' } });
    expect((await call('POST', '/repos/migrate', bob, { clone_addr: cloneAddr, repo_name: 'x', repo_owner: 'nobody-here' })).status).toBe(422);
    expect((await call('POST', '/repos/migrate', bob, { clone_addr: cloneAddr, repo_name: 'x', repo_owner: 'alice' }))).toMatchObject({
      status: 403,
      body: { message: 'Given user is not an organization.' },
    });
    expect(await call('POST', '/repos/migrate', bob, { clone_addr: '/etc', repo_name: 'x' })).toMatchObject({
      status: 422,
      body: { message: 'You are not allowed to import local repositories.' },
    });
  });
});

describe('POST /repos/migrate with the default host policy', () => {
  let fixture: Fixture;

  beforeAll(async () => {
    // 127.0.0.2 allowed by name pattern, so that DISABLE_MIGRATIONS (checked after the host) can be reached.
    fixture = await startFixture('e2e_migrate_policy', ['carol'], {
      CAIRN__migrations__ALLOWED_DOMAINS: '127.0.0.2',
      CAIRN__repository__DISABLE_MIGRATIONS: 'true',
    });
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  it('refuses a loopback source with 422 without contacting it, then DISABLE_MIGRATIONS with 403', async () => {
    const listener = await countingListener('127.0.0.1');
    try {
      const carol = fixture.as('carol');
      const refused = await fixture.api.request<Json>('POST', '/api/v1/repos/migrate', {
        headers: carol,
        body: { clone_addr: `http://127.0.0.1:${listener.port}/o/r.git`, repo_name: 'refused' },
      });
      expect(refused).toMatchObject({ status: 422, body: { message: 'You can not import from disallowed hosts.' } });
      const disabled = await fixture.api.request<Json>('POST', '/api/v1/repos/migrate', {
        headers: carol,
        body: { clone_addr: `http://127.0.0.2:${listener.port}/o/r.git`, repo_name: 'disabled' },
      });
      expect(disabled).toMatchObject({ status: 403, body: { message: 'the site administrator has disabled migrations' } });
      expect(listener.connections()).toBe(0);
      expect((await fixture.api.request('GET', '/api/v1/repos/carol/refused', { headers: carol })).status).toBe(404);
      expect((await fixture.api.request<Json>('GET', '/api/v1/settings/repository')).body).toMatchObject({ migrations_disabled: true });
    } finally {
      await listener.close();
    }
  });
});
