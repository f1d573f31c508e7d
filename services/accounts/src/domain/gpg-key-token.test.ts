import { acceptedTokens, tokenSigner, verificationToken } from './gpg-key-token';
import { loadOpenPgp } from './openpgp';

const owner = { id: 7, name: 'alice', email: 'alice@example.com', created: new Date('2024-01-02T03:04:05Z') };

describe('verificationToken', () => {
  it('names the minute: the same within one, another in the next', () => {
    const token = verificationToken(owner, new Date('2025-05-05T10:00:01Z'), 1);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(verificationToken(owner, new Date('2025-05-05T10:00:59Z'), 1)).toBe(token);
    expect(verificationToken(owner, new Date('2025-05-05T10:01:00Z'), 0)).toBe(token);
    expect(verificationToken(owner, new Date('2025-05-05T10:01:00Z'), 1)).not.toBe(token);
  });

  it('names the user', () => {
    const now = new Date('2025-05-05T10:00:00Z');
    expect(verificationToken({ ...owner, id: 8 }, now, 1)).not.toBe(verificationToken(owner, now, 1));
    expect(verificationToken({ ...owner, email: 'a@b.c' }, now, 1)).not.toBe(verificationToken(owner, now, 1));
  });

  it('accepts the token asked for and the previous one', () => {
    const now = new Date('2025-05-05T10:00:30Z');
    expect(acceptedTokens(owner, now)).toEqual([verificationToken(owner, now, 1), verificationToken(owner, now, 0)]);
  });
});

describe('tokenSigner', () => {
  it('finds the key whose detached signature signs a token, with or without a line end', async () => {
    const openpgp = await loadOpenPgp();
    const made = await Promise.all(
      ['a', 'b'].map((name) => openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name, email: `${name}@example.com` }], format: 'object' })),
    );
    const publicKeys = made.map(({ publicKey }) => publicKey);
    const sign = async (text: string, by = made[1].privateKey) =>
      openpgp.sign({ message: await openpgp.createMessage({ binary: Buffer.from(text) }), signingKeys: by, detached: true, format: 'armored' });
    expect(await tokenSigner(publicKeys, await sign('token-2\n'), ['token-1', 'token-2'])).toBe(publicKeys[1]);
    expect(await tokenSigner(publicKeys, await sign('token-1', made[0].privateKey), ['token-1'])).toBe(publicKeys[0]);
    expect(await tokenSigner(publicKeys, await sign('token-3'), ['token-1', 'token-2'])).toBeUndefined();
    expect(await tokenSigner([publicKeys[0]], await sign('token-1'), ['token-1'])).toBeUndefined();
    expect(await tokenSigner(publicKeys, 'not a signature', ['token-1'])).toBeUndefined();
  });
});
