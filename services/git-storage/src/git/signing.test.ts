import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SigningConfig } from '@cairn/config';
import { createLogger } from '@cairn/log';
import { createGpgKeyring, type GpgKeyring } from '@cairn/testing';
import { createInstanceSigning } from './signing';

describe('the instance signing key', () => {
  let keyring: GpgKeyring;
  let keyId: string;
  let scratch: string;

  beforeAll(() => {
    keyring = createGpgKeyring();
    keyId = keyring.generateKey('Cairn <cairn@example.com>');
    scratch = mkdtempSync(path.join(tmpdir(), 'cairn-signing-'));
  });
  afterAll(() => {
    rmSync(keyring.home, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  const config = (gnupgHome: string, signingKey = keyId): SigningConfig => ({
    signingKey,
    signingName: 'Cairn',
    signingEmail: 'cairn@example.com',
    format: 'openpgp',
    merges: ['always'],
    defaultTrustModel: 'collaborator',
    home: scratch,
    gnupgHome,
  });
  const capture = () => {
    const lines: string[] = [];
    return { lines, logger: createLogger({ service: 'git-storage', destination: { write: (line: string) => lines.push(line) } }) };
  };

  it('exports the public key from the keyring, and none (quietly) for a key the keyring does not have', async () => {
    const { lines, logger } = capture();
    await expect(createInstanceSigning(config(keyring.home), logger).verificationKey()).resolves.toMatchObject({
      armoredKeys: expect.stringContaining('BEGIN PGP PUBLIC KEY BLOCK'),
      name: 'Cairn',
    });
    await expect(createInstanceSigning(config(keyring.home, 'F'.repeat(40)), logger).verificationKey()).resolves.toBeUndefined();
    expect(lines).toEqual([]);
  });

  it('logs a keyring gpg cannot read, with gpg\'s error, instead of reading it as "no key"', async () => {
    const notADirectory = path.join(scratch, 'gnupg-file');
    writeFileSync(notADirectory, '');
    const { lines, logger } = capture();
    await expect(createInstanceSigning(config(notADirectory), logger).verificationKey()).resolves.toBeUndefined();
    const logged = lines.map((line) => JSON.parse(line) as { level: string; msg: string; key_id: string; err?: { message: string } });
    expect(logged).toEqual([
      expect.objectContaining({ level: 'error', msg: 'reading the instance signing key failed', key_id: keyId, err: expect.objectContaining({ message: expect.stringContaining('Not a directory') }) }),
    ]);
  });
});
