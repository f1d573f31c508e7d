import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { silentLogger } from '@cairn/log';
import { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import { type Callers, anyCaller } from './authorize';
import { createRpcClient } from './client';
import { CairnError, Code } from './errors';
import { ACTOR_ASSERTION_HEADER, SERVICE_TOKEN_HEADER, Keyring, currentKeyring, ensureKeys, generateKeyring, installKeyring, loadKeyring } from './identity';
import { type RpcServer, createRpcServer } from './server';

// The servers below answer who asked: the caller's identity and the viewer it passed.
const seen: { caller: string; viewer: number }[] = [];
let server: RpcServer;
let target: string;

// The three methods these tests call.
const definition = {
  getRepository: RepoServiceService.getRepository,
  filterReadable: RepoServiceService.filterReadable,
  deleteRepository: RepoServiceService.deleteRepository,
};
const callers: Callers<typeof definition> = {
  getRepository: ['gateway', 'issues', 'notifications'],
  filterReadable: { callers: ['gateway', 'notifications', 'issues'], asAnyone: ['issues'] },
  deleteRepository: ['gateway'],
};

beforeAll(async () => {
  server = createRpcServer({ service: 'repos', logger: silentLogger() });
  const answer = (viewer: number, caller: string) => {
    seen.push({ caller, viewer });
    return viewer;
  };
  server.addService(
    definition,
    {
      async getRepository(request, ctx) {
        answer(request.viewer?.userId ?? 0, ctx.caller);
        throw CairnError.notFound('no such repository');
      },
      async filterReadable(request, ctx) {
        answer(request.viewer?.userId ?? 0, ctx.caller);
        return { repoIds: request.repoIds };
      },
      async deleteRepository(request, ctx) {
        answer(request.actor?.userId ?? 0, ctx.caller);
        return {};
      },
    },
    callers,
  );
  target = `127.0.0.1:${await server.start('127.0.0.1:0')}`;
  server.setServing(true);
});
afterAll(() => server.stop(0));
beforeEach(() => void seen.splice(0));

const admin = { userId: 1, isAdmin: true, isRestricted: false };
const alice = { userId: 7, isAdmin: false, isRestricted: false };

function rawCall(path: string, request: Buffer, metadata: grpc.Metadata): Promise<grpc.ServiceError | undefined> {
  const raw = new grpc.Client(target, grpc.credentials.createInsecure());
  return new Promise((resolve) => {
    raw.makeUnaryRequest(path, (value: Buffer) => value, (value: Buffer) => value, request, metadata, (error) => {
      raw.close();
      resolve(error ?? undefined);
    });
  });
}

describe('service identity', () => {
  it('refuses a call without credentials before any handler runs', async () => {
    const error = await rawCall(RepoServiceService.deleteRepository.path, RepoServiceService.deleteRepository.requestSerialize({ actor: admin, id: 1 }), new grpc.Metadata());
    expect(error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(seen).toEqual([]);
  });

  it('refuses a token signed by a key the service does not trust, or addressed to another service', async () => {
    const stranger = generateKeyring(['gateway']);
    const forged = new grpc.Metadata();
    forged.set(SERVICE_TOKEN_HEADER, stranger.serviceToken('gateway', 'repos'));
    const request = RepoServiceService.deleteRepository.requestSerialize({ actor: admin, id: 1 });
    expect((await rawCall(RepoServiceService.deleteRepository.path, request, forged))?.code).toBe(grpc.status.UNAUTHENTICATED);
    const elsewhere = new grpc.Metadata();
    elsewhere.set(SERVICE_TOKEN_HEADER, currentKeyring().serviceToken('gateway', 'accounts'));
    expect((await rawCall(RepoServiceService.deleteRepository.path, request, elsewhere))?.code).toBe(grpc.status.UNAUTHENTICATED);
    const garbage = new grpc.Metadata();
    garbage.set(SERVICE_TOKEN_HEADER, 'v1.e30.AAAA');
    expect((await rawCall(RepoServiceService.deleteRepository.path, request, garbage))?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(seen).toEqual([]);
  });

  it('serves the identities an RPC names and refuses the others', async () => {
    const gateway = createRpcClient(RepoServiceService, { target, service: 'repos', caller: 'gateway', logger: silentLogger() });
    const social = createRpcClient(RepoServiceService, { target, service: 'repos', caller: 'social', logger: silentLogger() });
    try {
      await gateway.deleteRepository({ actor: admin, id: 1 });
      await expect(social.deleteRepository({ actor: undefined, id: 1 })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
      expect(seen).toEqual([{ caller: 'gateway', viewer: 1 }]);
    } finally {
      gateway.close();
      social.close();
    }
  });

  it('lets a service act only for the user the edge asserted', async () => {
    const notifications = createRpcClient(RepoServiceService, { target, service: 'repos', caller: 'notifications', logger: silentLogger() });
    const issues = createRpcClient(RepoServiceService, { target, service: 'repos', caller: 'issues', logger: silentLogger() });
    try {
      // No edge asserted anybody: a service may ask anonymously, never as a signed-in user (least of all an admin).
      await notifications.filterReadable({ viewer: undefined, repoIds: [1] });
      await expect(notifications.filterReadable({ viewer: admin, repoIds: [1] })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
      // A forged assertion (not signed by an edge's key) does not count.
      const forged = new grpc.Metadata();
      forged.set(SERVICE_TOKEN_HEADER, currentKeyring().serviceToken('notifications', 'repos'));
      forged.set(ACTOR_ASSERTION_HEADER, generateKeyring(['gateway']).actorAssertion('gateway', admin));
      const request = RepoServiceService.filterReadable.requestSerialize({ viewer: admin, repoIds: [1] });
      expect((await rawCall(RepoServiceService.filterReadable.path, request, forged))?.code).toBe(grpc.status.UNAUTHENTICATED);
      // The gateway's assertion for alice lets notifications act for alice, and only as she is.
      const asserted = new grpc.Metadata();
      asserted.set(SERVICE_TOKEN_HEADER, currentKeyring().serviceToken('notifications', 'repos'));
      asserted.set(ACTOR_ASSERTION_HEADER, currentKeyring().actorAssertion('gateway', alice));
      const asAlice = RepoServiceService.filterReadable.requestSerialize({ viewer: alice, repoIds: [1] });
      expect(await rawCall(RepoServiceService.filterReadable.path, asAlice, asserted)).toBeUndefined();
      const asAdminAlice = RepoServiceService.filterReadable.requestSerialize({ viewer: { ...alice, isAdmin: true }, repoIds: [1] });
      expect((await rawCall(RepoServiceService.filterReadable.path, asAdminAlice, asserted))?.code).toBe(grpc.status.PERMISSION_DENIED);
      // An RPC that grants `asAnyone` lets that service act for users from events.
      await issues.filterReadable({ viewer: alice, repoIds: [1] });
      expect(seen).toEqual([
        { caller: 'notifications', viewer: 0 },
        { caller: 'notifications', viewer: 7 },
        { caller: 'issues', viewer: 7 },
      ]);
    } finally {
      notifications.close();
      issues.close();
    }
  });

  it('passes the edge assertion on from the request a service is handling', async () => {
    // A relay service: answers filterReadable by asking repos for the same viewer as notifications would.
    const relay = createRpcServer({ service: 'notifications', logger: silentLogger() });
    const onward = createRpcClient(RepoServiceService, { target, service: 'repos', caller: 'notifications', logger: silentLogger() });
    const relayed = { filterReadable: RepoServiceService.filterReadable };
    relay.addService(relayed, { filterReadable: (request) => onward.filterReadable(request) }, anyCaller(relayed));
    const relayTarget = `127.0.0.1:${await relay.start('127.0.0.1:0')}`;
    // The relay serves a repos RPC, so credentials for it are addressed to repos (server.ts ownerOfRpc).
    const gateway = createRpcClient(RepoServiceService, { target: relayTarget, service: 'repos', caller: 'gateway', logger: silentLogger() });
    try {
      await expect(gateway.filterReadable({ viewer: alice, repoIds: [3] })).resolves.toEqual({ repoIds: [3] });
      expect(seen).toEqual([{ caller: 'notifications', viewer: 7 }]);
    } finally {
      gateway.close();
      onward.close();
      await relay.stop(0);
    }
  });
});

describe('keys', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'cairn-keys-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes each identity a private key only its owner can read, once', () => {
    const keys = path.join(dir, 'rpc-keys');
    expect(ensureKeys(keys, ['gateway', 'repos'])).toEqual(['gateway', 'repos']);
    expect(statSync(path.join(keys, 'gateway.key')).mode & 0o777).toBe(0o600);
    expect(statSync(keys).mode & 0o777).toBe(0o700);
    const before = readFileSync(path.join(keys, 'gateway.key'), 'utf8');
    expect(ensureKeys(keys, ['gateway', 'repos'])).toEqual([]);
    expect(readFileSync(path.join(keys, 'gateway.key'), 'utf8')).toBe(before);
    const loaded = loadKeyring(keys);
    expect(loaded.verifyServiceToken(loaded.serviceToken('gateway', 'repos'), 'repos')).toBe('gateway');
  });

  it('verifies tokens of a rotated key with both public keys published, and stops when the old one is withdrawn', () => {
    const old = path.join(dir, 'old');
    const next = path.join(dir, 'next');
    ensureKeys(old, ['gateway']);
    ensureKeys(next, ['gateway']);
    const oldToken = loadKeyring(old).serviceToken('gateway', 'repos');
    const newToken = loadKeyring(next).serviceToken('gateway', 'repos');
    // The callee during rotation: both public keys in gateway.pub.
    const callee = path.join(dir, 'callee');
    ensureKeys(callee, []);
    writeFileSync(path.join(callee, 'gateway.pub'), readFileSync(path.join(old, 'gateway.pub'), 'utf8') + readFileSync(path.join(next, 'gateway.pub'), 'utf8'));
    const during = loadKeyring(callee);
    expect(during.verifyServiceToken(oldToken, 'repos')).toBe('gateway');
    expect(during.verifyServiceToken(newToken, 'repos')).toBe('gateway');
    writeFileSync(path.join(callee, 'gateway.pub'), readFileSync(path.join(next, 'gateway.pub'), 'utf8'));
    const after = loadKeyring(callee);
    expect(() => after.verifyServiceToken(oldToken, 'repos')).toThrow(/not signed by gateway/);
    expect(after.verifyServiceToken(newToken, 'repos')).toBe('gateway');
  });

  it('refuses an expired credential', () => {
    const keyring = generateKeyring(['gateway']);
    const token = keyring.serviceToken('gateway', 'repos');
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 2 * 3600_000);
    try {
      expect(() => keyring.verifyServiceToken(token, 'repos')).toThrow(/expired/);
    } finally {
      clock.mockRestore();
    }
  });

  it('fails closed when a process installed no keys', async () => {
    const installed = currentKeyring();
    installKeyring(new Keyring());
    const client = createRpcClient(UserServiceService, { target, service: 'accounts', caller: 'gateway', logger: silentLogger() });
    try {
      await expect(client.getUser({ id: 1, username: '', viewer: undefined })).rejects.toMatchObject({ code: Code.UNAUTHENTICATED });
    } finally {
      client.close();
      installKeyring(installed);
    }
  });
});

describe('callers tables', () => {
  it('are real in every service: no server outside tests opens its RPCs to everyone', () => {
    const root = path.resolve(__dirname, '..', '..', '..', 'services');
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && readFileSync(full, 'utf8').includes('anyCaller')) offenders.push(full);
      }
    };
    for (const service of readdirSync(root)) {
      const src = path.join(root, service, 'src');
      if (existsSync(src)) walk(src);
    }
    expect(offenders).toEqual([]);
  });
});
