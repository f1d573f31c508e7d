/**
 * GPG keys end to end (issue 5): the built supervisor on a PostgreSQL test database, driven over HTTP through
 * the validating client, with keys made by the machine's gpg. Adding, listing (paged, X-Total-Count), reading
 * and removing one's keys, anyone's list, another user's key, and Gitea's answers to bad input.
 */
import { createGpgKeyring, createTestDatabase, type GpgKeyring } from '@cairn/testing';
import { apiClient, type ApiClient } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, makeWorkDir, runCli, startInstance, type Instance } from './support/instance';

jest.setTimeout(180_000);

interface ApiGpgKey {
  id: number;
  primary_key_id: string;
  key_id: string;
  public_key: string;
  emails: Array<{ email: string; verified: boolean }>;
  subkeys: ApiGpgKey[];
  can_sign: boolean;
  can_encrypt_comms: boolean;
  can_encrypt_storage: boolean;
  can_certify: boolean;
  verified: boolean;
  created_at: string;
  expires_at: string;
}

interface ErrorBody {
  message: string;
}

const PASSWORD = 'gpg-pass-12345';
const ADMIN = basicAuth('root', PASSWORD);
const ALICE = basicAuth('alice', PASSWORD);
const BOB = basicAuth('bob', PASSWORD);

describe('GPG keys through the gateway', () => {
  let api: ApiClient;
  let keyring: GpgKeyring;
  let stop: () => Promise<void>;
  let aliceFingerprint: string;
  let aliceKey: string;

  beforeAll(async () => {
    keyring = createGpgKeyring();
    const database = await createTestDatabase('e2e_gpg_keys');
    const workDir = makeWorkDir();
    const env = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__server__HTTP_PORT: '0' });
    let instance: Instance | undefined;
    try {
      instance = await startInstance(workDir, env);
      const created = await runCli(['admin', 'user', 'create', '--username', 'root', '--password', PASSWORD, '--email', 'root@example.com', '--admin'], env);
      expect(created.code).toBe(0);
    } catch (error) {
      await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
      await database.drop();
      throw error;
    }
    const running = instance;
    stop = async () => {
      await cleanUpWorkDir(workDir, [running]);
      await database.drop();
    };
    api = apiClient(running.httpUrl);
    for (const [username, visibility] of [['alice', 'public'], ['bob', 'public'], ['hidden', 'private']]) {
      const res = await api.request('POST', '/api/v1/admin/users', {
        headers: ADMIN,
        body: { username, email: `${username}@example.com`, password: PASSWORD, must_change_password: false, visibility },
      });
      expect(res.status).toBe(201);
    }
    aliceFingerprint = keyring.generateKey('Alice <alice@example.com>');
    keyring.addSubkey(aliceFingerprint, 'cv25519', 'encr');
    aliceKey = keyring.exportPublicKey(aliceFingerprint);
  });

  afterAll(async () => {
    keyring?.dispose();
    await stop?.();
  });

  const addKey = (auth: Record<string, string>, body: unknown) => api.request<ApiGpgKey & ErrorBody>('POST', '/api/v1/user/gpg_keys', { headers: auth, body });

  let aliceKeyId: number;

  it('adds a key with its subkey and the address it names (201)', async () => {
    const listed = keyring.listKey(aliceFingerprint);
    const res = await addKey(ALICE, { armored_public_key: aliceKey });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      primary_key_id: '',
      key_id: listed.keyId,
      emails: [{ email: 'alice@example.com', verified: true }],
      can_sign: true,
      can_encrypt_comms: false,
      can_certify: true,
      verified: false,
      created_at: listed.created.toISOString().replace('.000Z', 'Z'),
      expires_at: '0001-01-01T00:00:00Z',
    });
    expect(res.body.subkeys).toEqual([
      expect.objectContaining({ primary_key_id: listed.keyId, key_id: listed.subkeys[0].keyId, can_sign: false, can_encrypt_storage: true, emails: [] }),
    ]);
    aliceKeyId = res.body.id;
  });

  it('answers Gitea’s 422s and 404 for keys it will not add, adding nothing', async () => {
    const missing = await addKey(ALICE, {});
    expect(missing.status).toBe(422);
    const garbage = await addKey(ALICE, { armored_public_key: 'not a key' });
    expect(garbage.status).toBe(422);
    expect(garbage.body.message).toBe('failed to parse gpg key openpgp: invalid argument: no armored data found');
    const again = await addKey(BOB, { armored_public_key: aliceKey });
    expect(again.status).toBe(422);
    expect(again.body.message).toBe('A key with the same id already exists');
    const elsewhere = keyring.generateKey('Bob <bob@elsewhere.test>');
    const noEmail = await addKey(BOB, { armored_public_key: keyring.exportPublicKey(elsewhere) });
    expect(noEmail.status).toBe(404);
    expect(noEmail.body.message).toMatch(
      /^None of the emails attached to the GPG key could be found\. It may still be added if you provide a valid signature for the token: [0-9a-f]{64}$/,
    );
    const anonymous = await addKey({}, { armored_public_key: aliceKey });
    expect(anonymous.status).toBe(401);
    const bobs = await api.request<ApiGpgKey[]>('GET', '/api/v1/user/gpg_keys', { headers: BOB });
    expect(bobs.body).toEqual([]);
    expect(bobs.headers.get('x-total-count')).toBe('0');
  });

  it('lists the user’s keys, paged, to them and to anyone who may see the user', async () => {
    const second = keyring.generateKey('Alice Again <alice@example.com>');
    expect((await addKey(ALICE, { armored_public_key: keyring.exportPublicKey(second) })).status).toBe(201);
    const own = await api.request<ApiGpgKey[]>('GET', '/api/v1/user/gpg_keys', { headers: ALICE });
    expect(own.status).toBe(200);
    expect(own.headers.get('x-total-count')).toBe('2');
    expect(own.body.map((key) => key.id)[0]).toBe(aliceKeyId);
    const page = await api.request<ApiGpgKey[]>('GET', '/api/v1/user/gpg_keys?page=2&limit=1', { headers: ALICE });
    expect(page.body.map((key) => key.id)).toEqual([own.body[1].id]);
    const anyones = await api.request<ApiGpgKey[]>('GET', '/api/v1/users/alice/gpg_keys');
    expect(anyones.status).toBe(200);
    expect(anyones.headers.get('x-total-count')).toBe('2');
    expect(anyones.body).toEqual(own.body);
    expect((await api.request('GET', '/api/v1/users/hidden/gpg_keys', { headers: BOB })).status).toBe(404);
    expect((await api.request('GET', '/api/v1/users/nobody/gpg_keys')).status).toBe(404);
  });

  it('answers one key to its owner only', async () => {
    const own = await api.request<ApiGpgKey>('GET', `/api/v1/user/gpg_keys/${aliceKeyId}`, { headers: ALICE });
    expect(own.status).toBe(200);
    expect(own.body.key_id).toBe(keyring.listKey(aliceFingerprint).keyId);
    expect((await api.request('GET', `/api/v1/user/gpg_keys/${aliceKeyId}`, { headers: BOB })).status).toBe(404);
    expect((await api.request('GET', '/api/v1/user/gpg_keys/abc', { headers: ALICE })).status).toBe(404);
  });

  it('removes only the owner’s key (204 either way, as Gitea)', async () => {
    expect((await api.request('DELETE', `/api/v1/user/gpg_keys/${aliceKeyId}`, { headers: BOB })).status).toBe(204);
    expect((await api.request('GET', `/api/v1/user/gpg_keys/${aliceKeyId}`, { headers: ALICE })).status).toBe(200);
    expect((await api.request('DELETE', `/api/v1/user/gpg_keys/${aliceKeyId}`, { headers: ALICE })).status).toBe(204);
    expect((await api.request('GET', `/api/v1/user/gpg_keys/${aliceKeyId}`, { headers: ALICE })).status).toBe(404);
    const left = await api.request<ApiGpgKey[]>('GET', '/api/v1/user/gpg_keys', { headers: ALICE });
    expect(left.headers.get('x-total-count')).toBe('1');
  });
});
