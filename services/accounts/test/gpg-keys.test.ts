/**
 * GpgKeyService over gRPC on a real database, with keys made by the machine's gpg: what is parsed and stored
 * (key ids, subkeys, capabilities, expiry, the owner's addresses), who may read and delete, Gitea's refusals,
 * the signed-token proof, and the keys git-storage gets to check a signature by e-mail.
 */
import { silentLogger } from '@cairn/log';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { GpgKeyServiceService } from '@cairn/proto/cairn/accounts/v1/gpg_keys_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { Code, createRpcClient, type RpcClient } from '@cairn/rpc';
import { createGpgKeyring, type GpgKeyring } from '@cairn/testing';
import { loadOpenPgp } from '../src/domain/openpgp';
import { actor, startHarness, type Harness } from './harness';

let h: Harness;
let gpgKeys: RpcClient<typeof GpgKeyServiceService>;
let keyring: GpgKeyring;

const ANONYMOUS: Actor = { userId: 0, isAdmin: false, isRestricted: false };

async function keyRowCount(): Promise<number> {
  const { rows } = await h.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM gpg_keys');
  return rows[0].n;
}

let alice: User;
let bob: User;
let hidden: User;
let asGitStorage: RpcClient<typeof GpgKeyServiceService>;
/** Alice's ed25519 key (expires in 2 years) with a cv25519 encryption subkey and a second identity. */
let aliceKey: string;
let aliceFingerprint: string;

beforeAll(async () => {
  h = await startHarness();
  gpgKeys = createRpcClient(GpgKeyServiceService, { target: `127.0.0.1:${h.service.port}`, service: 'accounts', caller: 'gateway', logger: silentLogger() });
  // FindVerificationKeys serves git-storage only (rpc/callers.ts).
  asGitStorage = createRpcClient(GpgKeyServiceService, { target: `127.0.0.1:${h.service.port}`, service: 'accounts', caller: 'git-storage', logger: silentLogger() });
  keyring = createGpgKeyring();
  alice = await h.createUser('alice', { email: 'Alice@Example.com' });
  bob = await h.createUser('bob');
  hidden = await h.createUser('hidden', { visibility: 'private' });
  aliceFingerprint = keyring.generateKey('Alice <alice@example.COM>', { usage: 'sign,cert', expire: '2y' });
  keyring.addSubkey(aliceFingerprint, 'cv25519', 'encr');
  keyring.addUid(aliceFingerprint, 'Alice Elsewhere <alice@elsewhere.test>');
  aliceKey = keyring.exportPublicKey(aliceFingerprint);
});

afterAll(async () => {
  gpgKeys?.close();
  asGitStorage?.close();
  keyring?.dispose();
  await h?.stop();
});

describe('CreateGpgKey', () => {
  it('stores the key and its subkeys as gpg describes them, with the owner address it names', async () => {
    const listed = keyring.listKey(aliceFingerprint);
    const { key } = await gpgKeys.createGpgKey({ actor: actor(alice), armoredPublicKey: aliceKey, armoredSignature: '' });
    expect(key).toMatchObject({
      ownerId: alice.id,
      keyId: listed.keyId,
      primaryKeyId: '',
      emails: ['Alice@Example.com'],
      verified: false,
      canSign: true,
      canEncryptComms: false,
      canEncryptStorage: false,
      canCertify: true,
      created: listed.created,
      expires: listed.expires,
    });
    expect(listed.expires).toBeDefined();
    // The public key is the primary key's packet (tag 6), base64 as Gitea answers it.
    expect(Buffer.from(key!.publicKey, 'base64')[0] & 0x3f).toBe(6);
    expect(key!.subkeys).toHaveLength(1);
    expect(key!.subkeys[0]).toMatchObject({
      keyId: listed.subkeys[0].keyId,
      primaryKeyId: listed.keyId,
      emails: [],
      subkeys: [],
      canSign: false,
      canEncryptComms: true,
      canEncryptStorage: true,
      canCertify: false,
      created: listed.subkeys[0].created,
      // Gitea gives subkeys the primary key's expiry.
      expires: listed.expires,
    });
    // Subkey packets have tag 14.
    expect(Buffer.from(key!.subkeys[0].publicKey, 'base64')[0] & 0x3f).toBe(14);
  });

  it('refuses a key that is already registered, by anyone', async () => {
    const before = await keyRowCount();
    for (const who of [alice, bob]) {
      await expect(gpgKeys.createGpgKey({ actor: actor(who), armoredPublicKey: aliceKey, armoredSignature: '' })).rejects.toMatchObject({
        code: Code.ALREADY_EXISTS,
        reason: 'gpg_key_exists',
        message: 'A key with the same id already exists',
      });
    }
    expect(await keyRowCount()).toBe(before);
  });

  it('refuses what is not an armored key', async () => {
    await expect(gpgKeys.createGpgKey({ actor: actor(bob), armoredPublicKey: 'ssh-ed25519 AAAA', armoredSignature: '' })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
      reason: 'gpg_key_invalid',
      message: 'failed to parse gpg key openpgp: invalid argument: no armored data found',
    });
    const broken = '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nbm90IGEga2V5\n=AAAA\n-----END PGP PUBLIC KEY BLOCK-----\n';
    await expect(gpgKeys.createGpgKey({ actor: actor(bob), armoredPublicKey: broken, armoredSignature: '' })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
      reason: 'gpg_key_invalid',
    });
  });

  it('refuses a key naming none of the owner addresses unless it signs the verification token', async () => {
    const fingerprint = keyring.generateKey('Bob Elsewhere <bob@elsewhere.test>', { algorithm: 'rsa2048' });
    const armored = keyring.exportPublicKey(fingerprint);
    const before = await keyRowCount();
    const refusal = await gpgKeys.createGpgKey({ actor: actor(bob), armoredPublicKey: armored, armoredSignature: '' }).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'gpg_key_no_email' });
    const token = /the token: ([0-9a-f]{64})$/.exec((refusal as Error).message)?.[1];
    expect(token).toBeDefined();
    expect(await keyRowCount()).toBe(before);

    // A signature of something else proves nothing.
    const wrong = keyring.signDetached(fingerprint, 'not the token');
    await expect(gpgKeys.createGpgKey({ actor: actor(bob), armoredPublicKey: armored, armoredSignature: wrong })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
      reason: 'gpg_key_signature_invalid',
    });

    const { key } = await gpgKeys.createGpgKey({ actor: actor(bob), armoredPublicKey: armored, armoredSignature: keyring.signDetached(fingerprint, token!) });
    // RSA keys can do everything.
    expect(key).toMatchObject({ verified: true, emails: [], canSign: true, canEncryptComms: true, canEncryptStorage: true, canCertify: true });
    expect(key!.expires).toBeUndefined();
  });

  it('does not count a revoked identity', async () => {
    const carol = await h.createUser('carol');
    const fingerprint = keyring.generateKey('Carol <carol@example.com>');
    keyring.addUid(fingerprint, 'Carol Elsewhere <carol@elsewhere.test>');
    keyring.revokeUid(fingerprint, 'Carol <carol@example.com>');
    await expect(
      gpgKeys.createGpgKey({ actor: actor(carol), armoredPublicKey: keyring.exportPublicKey(fingerprint), armoredSignature: '' }),
    ).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'gpg_key_no_email' });
  });

  it('needs a signed-in user', async () => {
    await expect(gpgKeys.createGpgKey({ actor: ANONYMOUS, armoredPublicKey: aliceKey, armoredSignature: '' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });
});

describe('reading and deleting', () => {
  let keyId: number;
  let subkeyId: number;

  beforeAll(async () => {
    const { keys } = await gpgKeys.listGpgKeys({ viewer: actor(alice), userId: alice.id });
    keyId = keys[0].id;
    subkeyId = keys[0].subkeys[0].id;
  });

  it('lists a user’s primary keys, paged, to anyone who may see the user', async () => {
    const second = keyring.generateKey('Alice Two <alice@example.com>');
    await gpgKeys.createGpgKey({ actor: actor(alice), armoredPublicKey: keyring.exportPublicKey(second), armoredSignature: '' });
    const all = await gpgKeys.listGpgKeys({ viewer: ANONYMOUS, userId: alice.id });
    expect(all.total).toBe(2);
    expect(all.keys.map((key) => key.primaryKeyId)).toEqual(['', '']);
    expect(all.keys[0].id).toBe(keyId);
    const page = await gpgKeys.listGpgKeys({ viewer: actor(bob), userId: alice.id, page: { page: 2, limit: 1 } });
    expect(page).toMatchObject({ total: 2, keys: [{ keyId: all.keys[1].keyId }] });
    await expect(gpgKeys.listGpgKeys({ viewer: actor(bob), userId: hidden.id })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect(await gpgKeys.listGpgKeys({ viewer: actor(hidden), userId: hidden.id })).toEqual({ keys: [], total: 0 });
  });

  it('answers a key, or a subkey by its id, only to its owner', async () => {
    const { key } = await gpgKeys.getGpgKey({ actor: actor(alice), id: keyId });
    expect(key!.subkeys.map((subkey) => subkey.id)).toEqual([subkeyId]);
    const { key: subkey } = await gpgKeys.getGpgKey({ actor: actor(alice), id: subkeyId });
    expect(subkey).toMatchObject({ primaryKeyId: key!.keyId, subkeys: [] });
    await expect(gpgKeys.getGpgKey({ actor: actor(bob), id: keyId })).rejects.toMatchObject({ code: Code.NOT_FOUND, reason: 'gpg_key_not_found' });
  });

  it('deletes only the owner’s key, with its subkeys', async () => {
    await expect(gpgKeys.deleteGpgKey({ actor: actor(bob), id: keyId })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect((await gpgKeys.getGpgKey({ actor: actor(alice), id: keyId })).key).toBeDefined();
    await gpgKeys.deleteGpgKey({ actor: actor(alice), id: keyId });
    await expect(gpgKeys.getGpgKey({ actor: actor(alice), id: keyId })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(gpgKeys.getGpgKey({ actor: actor(alice), id: subkeyId })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(gpgKeys.deleteGpgKey({ actor: actor(alice), id: keyId })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    // The key may be added again.
    await gpgKeys.createGpgKey({ actor: actor(alice), armoredPublicKey: aliceKey, armoredSignature: '' });
  });
});

describe('FindVerificationKeys', () => {
  it('answers, per address, the owner’s keys that vouch for it, with the ids that can sign', async () => {
    const { keys } = await asGitStorage.findVerificationKeys({ emails: ['ALICE@example.com', 'bob@example.com', 'nobody@example.com'] });
    const listed = keyring.listKey(aliceFingerprint);
    const forAlice = keys.filter((key) => key.email === 'ALICE@example.com');
    expect(forAlice).toHaveLength(2);
    expect(forAlice.every((key) => key.userId === alice.id)).toBe(true);
    const first = forAlice.find((key) => key.keyIds.includes(listed.keyId));
    // The encryption subkey cannot sign.
    expect(first!.keyIds).toEqual([listed.keyId]);
    const parsed = await (await loadOpenPgp()).readKey({ armoredKey: first!.publicKey });
    expect(parsed.getKeyID().toHex().toUpperCase()).toBe(listed.keyId);
    expect(parsed.subkeys.map((subkey) => subkey.getKeyID().toHex().toUpperCase())).toEqual([listed.subkeys[0].keyId]);
    // Bob's only key names another address but was verified by signature.
    expect(keys.filter((key) => key.email === 'bob@example.com').map((key) => key.userId)).toEqual([bob.id]);
    expect(keys.some((key) => key.email === 'nobody@example.com')).toBe(false);
  });

  it('answers nothing for an address whose owner has no key vouching for it', async () => {
    // Alice's second identity is on her key, but the address is not hers.
    expect(await asGitStorage.findVerificationKeys({ emails: ['alice@elsewhere.test'] })).toEqual({ keys: [] });
  });
});
