/**
 * Service identity on the built supervisor (docs/security.md): whoever reaches a service's gRPC port without
 * the work dir's keys gets nothing, a service may call only the RPCs that name it, and a service cannot act for a
 * user (least of all an administrator) that the gateway did not assert. The instance keeps working for its users
 * and its CLI meanwhile.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { CreateUserRequest, ListUsersRequest, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { FilterReadableRequest, RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import { ACTOR_ASSERTION_HEADER, type Keyring, SERVICE_TOKEN_HEADER, generateKeyring, loadKeyring } from '@cairn/rpc';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { apiClient, type ApiClient } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, makeWorkDir, runCli, startInstance, type Instance } from './support/instance';

jest.setTimeout(180_000);

interface Method<Req> {
  path: string;
  requestSerialize(value: Req): Buffer;
}

describe('service identity', () => {
  let database: TestDatabase;
  let workDir: string;
  let instance: Instance;
  let api: ApiClient;
  let keys: Keyring;
  const root = basicAuth('root', 'root-pass-123');

  beforeAll(async () => {
    database = await createTestDatabase('e2e_service_identity');
    workDir = makeWorkDir();
    const env = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__server__HTTP_PORT: '0' });
    instance = await startInstance(workDir, env);
    api = apiClient(instance.httpUrl);
    // The CLI reaches the running instance with the work dir's keys.
    expect((await runCli(['admin', 'user', 'create', '--username', 'root', '--password', 'root-pass-123', '--email', 'root@example.com', '--admin'], env)).code).toBe(0);
    keys = loadKeyring(path.join(workDir, 'rpc-keys'));
  });

  afterAll(async () => {
    await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database?.drop();
  });

  const addressOf = (service: string): string => {
    const address = instance.runtime.services[service]?.addr;
    if (address === undefined) throw new Error(`no address for ${service}`);
    return address;
  };

  /** One unary call with exactly the metadata given: the status code it ends with (0 = OK). */
  function call<Req>(service: string, method: Method<Req>, request: Req, headers: Record<string, string>): Promise<number> {
    const raw = new grpc.Client(addressOf(service), grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    for (const [key, value] of Object.entries(headers)) metadata.set(key, value);
    return new Promise((resolve) => {
      raw.makeUnaryRequest(method.path, method.requestSerialize, (bytes: Buffer) => bytes, request, metadata, { deadline: Date.now() + 10_000 }, (error) => {
        raw.close();
        resolve(error === null ? grpc.status.OK : error.code);
      });
    });
  }

  const intruder = CreateUserRequest.fromPartial({ username: 'intruder', email: 'intruder@example.com', password: 'intruder-pass-1', isAdmin: true });

  const usernames = async () => {
    const listed = await api.request<Array<{ login: string }>>('GET', '/api/v1/admin/users?limit=50', { headers: root });
    expect(listed.status).toBe(200);
    return listed.body.map((user) => user.login).sort();
  };

  it('keeps the keys in the work dir, private keys readable by their owner only', () => {
    const dir = path.join(workDir, 'rpc-keys');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const identity of ['gateway', 'cli', 'accounts', 'repos', 'git-storage', 'issues', 'social', 'notifications', 'hooks', 'migrations']) {
      expect([identity, statSync(path.join(dir, `${identity}.key`)).mode & 0o777]).toEqual([identity, 0o600]);
    }
  });

  it('answers an anonymous caller UNAUTHENTICATED and does nothing', async () => {
    const listUsers = ListUsersRequest.fromPartial({ viewer: { userId: 1, isAdmin: true, isRestricted: false } });
    expect(await call('accounts', UserServiceService.listUsers, listUsers, {})).toBe(grpc.status.UNAUTHENTICATED);
    expect(await call('accounts', UserServiceService.createUser, intruder, {})).toBe(grpc.status.UNAUTHENTICATED);
    // A credential signed by a key the instance never made proves nothing either.
    const stranger = generateKeyring(['gateway']);
    expect(await call('accounts', UserServiceService.createUser, intruder, { [SERVICE_TOKEN_HEADER]: stranger.serviceToken('gateway', 'accounts') })).toBe(
      grpc.status.UNAUTHENTICATED,
    );
    expect(await usernames()).toEqual(['root']);
  });

  it('lets a service call only the RPCs that name it', async () => {
    // Only the gateway and the CLI create users.
    const asSocial = { [SERVICE_TOKEN_HEADER]: keys.serviceToken('social', 'accounts') };
    expect(await call('accounts', UserServiceService.createUser, intruder, asSocial)).toBe(grpc.status.PERMISSION_DENIED);
    expect(await usernames()).toEqual(['root']);
    const asCli = { [SERVICE_TOKEN_HEADER]: keys.serviceToken('cli', 'accounts') };
    expect(await call('accounts', UserServiceService.createUser, { ...intruder, username: 'made-by-cli', email: 'cli@example.com', isAdmin: false }, asCli)).toBe(
      grpc.status.OK,
    );
    expect(await usernames()).toEqual(['made-by-cli', 'root']);
  });

  it('refuses a service acting for a user the gateway did not assert', async () => {
    const admin = { userId: 1, isAdmin: true, isRestricted: false };
    const request = FilterReadableRequest.fromPartial({ viewer: admin, repoIds: [1, 2, 3] });
    const asNotifications = { [SERVICE_TOKEN_HEADER]: keys.serviceToken('notifications', 'repos') };
    // notifications may ask FilterReadable, but not as an administrator nobody asserted…
    expect(await call('repos', RepoServiceService.filterReadable, request, asNotifications)).toBe(grpc.status.PERMISSION_DENIED);
    // …nor with an assertion signed by a key that is not the gateway's…
    const forged = { ...asNotifications, [ACTOR_ASSERTION_HEADER]: generateKeyring(['gateway']).actorAssertion('gateway', admin) };
    expect(await call('repos', RepoServiceService.filterReadable, request, forged)).toBe(grpc.status.UNAUTHENTICATED);
    // …nor as somebody else than the user the gateway asserted.
    const asserted = { ...asNotifications, [ACTOR_ASSERTION_HEADER]: keys.actorAssertion('gateway', { userId: 1, isAdmin: false, isRestricted: false }) };
    expect(await call('repos', RepoServiceService.filterReadable, request, asserted)).toBe(grpc.status.PERMISSION_DENIED);
    expect(await call('repos', RepoServiceService.filterReadable, FilterReadableRequest.fromPartial({ viewer: { userId: 1, isAdmin: false, isRestricted: false }, repoIds: [1] }), asserted)).toBe(
      grpc.status.OK,
    );
  });
});
