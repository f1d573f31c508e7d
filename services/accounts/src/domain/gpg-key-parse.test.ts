import { parseArmoredKeys } from './gpg-key-parse';
import { loadOpenPgp } from './openpgp';

async function generate(email: string, keyExpirationTime = 0) {
  const openpgp = await loadOpenPgp();
  return openpgp.generateKey({
    type: 'ecc',
    curve: 'curve25519Legacy',
    userIDs: [{ name: 'Someone', email }],
    keyExpirationTime,
    date: new Date('2025-01-01T00:00:00Z'),
    format: 'object',
  });
}

describe('parseArmoredKeys', () => {
  it('reads key ids, capabilities, expiry and identities', async () => {
    const { publicKey } = await generate('someone@example.com', 3600);
    const [key] = await parseArmoredKeys(publicKey.armor());
    expect(key).toMatchObject({
      keyId: publicKey.getKeyID().toHex().toUpperCase(),
      created: new Date('2025-01-01T00:00:00Z'),
      expires: new Date('2025-01-01T01:00:00Z'),
      canSign: true,
      canCertify: true,
      canEncryptComms: false,
      identityEmails: ['someone@example.com'],
    });
    expect(key.keyId).toMatch(/^[0-9A-F]{16}$/);
    expect(key.subkeys).toEqual([
      expect.objectContaining({ keyId: publicKey.subkeys[0].getKeyID().toHex().toUpperCase(), canSign: false, canEncryptStorage: true, expires: key.expires }),
    ]);
  });

  it('reads the public half of a private key block, and every key of a block once', async () => {
    const first = await generate('one@example.com');
    const second = await generate('two@example.com');
    const [fromPrivate] = await parseArmoredKeys(first.privateKey.armor());
    expect(fromPrivate.armored).toContain('PUBLIC KEY BLOCK');
    expect(fromPrivate.keyId).toBe(first.publicKey.getKeyID().toHex().toUpperCase());
    const openpgp = await loadOpenPgp();
    const block = openpgp.armor(
      openpgp.enums.armor.publicKey,
      Buffer.concat([first.publicKey.write(), second.publicKey.write(), first.publicKey.write()]),
    );
    const keys = await parseArmoredKeys(block);
    expect(keys.map((key) => key.identityEmails)).toEqual([['one@example.com'], ['two@example.com']]);
  });

  it('refuses what is not a key', async () => {
    await expect(parseArmoredKeys('hello')).rejects.toMatchObject({ reason: 'gpg_key_invalid', message: 'failed to parse gpg key openpgp: invalid argument: no armored data found' });
    await expect(parseArmoredKeys('-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nAAAA\n-----END PGP PUBLIC KEY BLOCK-----')).rejects.toMatchObject({ reason: 'gpg_key_invalid' });
  });
});
