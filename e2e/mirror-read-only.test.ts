/**
 * A pull mirror is read-only through the contents API (Gitea's routers/api/v1/repo/file.go canWriteFiles: 403 with
 * ErrUserDoesNotHaveAccessToRepo's message), and `mirror_interval` on repository edit follows Gitea's updateMirror:
 * refused (422) on a repository that is not a mirror; 0 or at least `[mirror] MIN_INTERVAL` on a mirror, smaller or
 * malformed 422. No API makes a mirror yet in this test's scope, so the repository is marked one in repos' table.
 */
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import { apiClient, type ApiClient } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, makeWorkDir, runCli, startInstance, type Instance } from './support/instance';

jest.setTimeout(180_000);

describe('a mirror repository', () => {
  let database: TestDatabase;
  let workDir: string;
  let pg: Client;
  const instances: Instance[] = [];
  let api: ApiClient;
  let rootId = 0;
  const root = basicAuth('root', 'root-pass-123');

  beforeAll(async () => {
    database = await createTestDatabase('e2e_mirror_read_only');
    workDir = makeWorkDir();
    const env = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__server__HTTP_PORT: '0' });
    const instance = await startInstance(workDir, env);
    instances.push(instance);
    api = apiClient(instance.httpUrl);
    expect((await runCli(['admin', 'user', 'create', '--username', 'root', '--password', 'root-pass-123', '--email', 'root@example.com', '--admin'], env)).code).toBe(0);
    pg = new Client({ connectionString: database.url });
    await pg.connect();
    for (const name of ['mirrored', 'plain']) {
      const made = await api.request<{ id: number; owner: { id: number } }>('POST', '/api/v1/user/repos', { headers: root, body: { name, auto_init: true } });
      expect(made.status).toBe(201);
      rootId = made.body.owner.id;
    }
    await pg.query(`UPDATE repos.repositories SET is_mirror = true WHERE name = 'mirrored'`);
  });

  afterAll(async () => {
    await pg?.end();
    if (workDir !== undefined) await cleanUpWorkDir(workDir, instances);
    await database?.drop();
  });

  it('refuses contents writes with Gitea’s 403, and changes nothing', async () => {
    const readme = await api.request<{ sha: string }>('GET', '/api/v1/repos/root/mirrored/contents/README.md', { headers: root });
    expect(readme.status).toBe(200);
    const message = `user doesn't have access to repo [user_id: ${rootId}, repo_name: mirrored]`;
    const content = Buffer.from('changed\n').toString('base64');
    const writes = [
      api.request('POST', '/api/v1/repos/root/mirrored/contents/new.txt', { headers: root, body: { content } }),
      api.request('PUT', '/api/v1/repos/root/mirrored/contents/README.md', { headers: root, body: { content, sha: readme.body.sha } }),
      api.request('DELETE', '/api/v1/repos/root/mirrored/contents/README.md', { headers: root, body: { sha: readme.body.sha } }),
      api.request('POST', '/api/v1/repos/root/mirrored/contents', { headers: root, body: { files: [{ operation: 'create', path: 'x.txt', content }] } }),
    ];
    for (const answer of await Promise.all(writes)) expect(answer).toMatchObject({ status: 403, body: { message } });
    const after = await api.request<{ sha: string }>('GET', '/api/v1/repos/root/mirrored/contents/README.md', { headers: root });
    expect(after.body.sha).toBe(readme.body.sha);
    expect((await api.request('GET', '/api/v1/repos/root/mirrored/contents/new.txt', { headers: root })).status).toBe(404);
    // The same write on a repository that is no mirror works.
    expect((await api.request('POST', '/api/v1/repos/root/plain/contents/new.txt', { headers: root, body: { content } })).status).toBe(201);
  });

  it('validates mirror_interval on a mirror and refuses it elsewhere', async () => {
    const edit = (name: string, interval: string) => api.request<{ mirror_interval: string; message: string }>('PATCH', `/api/v1/repos/root/${name}`, { headers: root, body: { mirror_interval: interval } });
    // Gitea's updateMirror refuses the field on a repository that is not a mirror (routers/api/v1/repo/repo.go).
    expect(await edit('plain', '1h')).toMatchObject({ status: 422, body: { message: 'repo is not a mirror, can not change mirror interval' } });
    expect((await edit('mirrored', '0')).status).toBe(200);
    expect((await edit('mirrored', '1h')).status).toBe(200);
    expect((await edit('mirrored', '1m')).status).toBe(422);
    expect((await edit('mirrored', 'nonsense')).status).toBe(422);
  });
});
