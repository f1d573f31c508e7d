/**
 * Real GPG keys for tests, made by the machine's `gpg` in a throwaway GNUPGHOME: keys as users would upload
 * them (`/user/gpg_keys`) and detached signatures; `env` lets `git commit -S` sign with the same keys.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** One key or subkey as `gpg --with-colons` lists it. */
export interface GpgKeyListing {
  /** Long key id, upper-case hex. */
  keyId: string;
  created: Date;
  /** Undefined: never expires. */
  expires: Date | undefined;
  /** gpg's capability letters of this key, e.g. `sc`, `e`. */
  capabilities: string;
}

export interface GpgPrimaryKeyListing extends GpgKeyListing {
  fingerprint: string;
  subkeys: GpgKeyListing[];
}

export interface GpgKeyring {
  /** The GNUPGHOME. */
  home: string;
  /** The environment for tools that should use this keyring (git with `commit.gpgSign`, `gpg`). */
  env: NodeJS.ProcessEnv;
  /**
   * Generates a key without a passphrase (`gpg --quick-gen-key`): `algorithm` e.g. `ed25519` or `rsa2048`,
   * `usage` e.g. `sign` or `sign,cert`, `expire` e.g. `never` or `2y`. Answers its fingerprint.
   */
  generateKey(uid: string, options?: { algorithm?: string; usage?: string; expire?: string }): string;
  /** `gpg --quick-add-key`: e.g. `cv25519`, `encr`. */
  addSubkey(fingerprint: string, algorithm: string, usage: string, expire?: string): void;
  addUid(fingerprint: string, uid: string): void;
  revokeUid(fingerprint: string, uid: string): void;
  /** The armored public key with its subkeys and identities. */
  exportPublicKey(fingerprint: string): string;
  /** An armored detached signature of `data` by the key. */
  signDetached(fingerprint: string, data: string): string;
  /** The key and its subkeys as gpg lists them. */
  listKey(fingerprint: string): GpgPrimaryKeyListing;
  /** Stops the keyring's agent and removes the directory. */
  dispose(): void;
}

const UNATTENDED = ['--batch', '--pinentry-mode', 'loopback', '--passphrase', ''];

function secondsToDate(field: string | undefined): Date | undefined {
  return field === undefined || field === '' ? undefined : new Date(Number(field) * 1000);
}

function listing(fields: readonly string[]): GpgKeyListing {
  return {
    keyId: fields[4].toUpperCase(),
    created: secondsToDate(fields[5]) ?? new Date(0),
    expires: secondsToDate(fields[6]),
    capabilities: fields[11],
  };
}

export function createGpgKeyring(): GpgKeyring {
  const home = mkdtempSync(path.join(tmpdir(), 'cairn-gpg-'));
  const env = { ...process.env, GNUPGHOME: home };
  const gpg = (args: readonly string[], input?: string): string =>
    execFileSync('gpg', [...UNATTENDED, ...args], { env, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

  function listKey(fingerprint: string): GpgPrimaryKeyListing {
    const lines = gpg(['--with-colons', '--fixed-list-mode', '--list-keys', '--', fingerprint])
      .split('\n')
      .map((line) => line.split(':'));
    let primary: GpgPrimaryKeyListing | undefined;
    for (const fields of lines) {
      if (fields[0] === 'pub') primary = { ...listing(fields), fingerprint, subkeys: [] };
      else if (fields[0] === 'sub' && primary !== undefined) primary.subkeys.push(listing(fields));
    }
    if (primary === undefined) throw new Error(`gpg lists no key ${fingerprint}`);
    return primary;
  }

  return {
    home,
    env,
    generateKey(uid, { algorithm = 'ed25519', usage = 'sign', expire = 'never' } = {}) {
      gpg(['--quick-gen-key', '--', uid, algorithm, usage, expire]);
      const fingerprints = gpg(['--with-colons', '--list-keys', '--', `=${uid}`])
        .split('\n')
        .filter((line) => line.startsWith('fpr:'))
        .map((line) => line.split(':')[9]);
      // The newest key with this user id is the one just made.
      return fingerprints[fingerprints.length - 1];
    },
    addSubkey(fingerprint, algorithm, usage, expire = 'never') {
      gpg(['--quick-add-key', '--', fingerprint, algorithm, usage, expire]);
    },
    addUid(fingerprint, uid) {
      gpg(['--quick-add-uid', '--', fingerprint, uid]);
    },
    revokeUid(fingerprint, uid) {
      gpg(['--quick-revoke-uid', '--', fingerprint, uid]);
    },
    exportPublicKey(fingerprint) {
      return gpg(['--armor', '--export', '--', fingerprint]);
    },
    signDetached(fingerprint, data) {
      return gpg(['--armor', '--detach-sign', '--local-user', fingerprint], data);
    },
    listKey,
    dispose() {
      try {
        execFileSync('gpgconf', ['--kill', 'gpg-agent'], { env, stdio: 'ignore' });
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
  };
}
