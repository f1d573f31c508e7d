/**
 * The instance's signing key (`[repository.signing]`, Gitea's services/asymkey/sign.go SigningKey): which key git
 * signs with, who the signer is, and its public key for verifying what it signed. gpg runs with the configured
 * GNUPGHOME; SIGNING_KEY = default reads `commit.gpgsign`, `user.signingkey`, `user.name` and `user.email` from
 * the `.gitconfig` of git-storage's git home (Gitea's `[git] HOME_PATH`), the only place git-storage reads git
 * configuration from outside a repository.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import type { MergeSigningRule, SigningConfig } from '@cairn/config';
import type { Logger } from '@cairn/log';
import { runGit } from './command';

/** The key signing commits and the identity it signs as (Gitea's signing key id and `*git.Signature`). */
export interface SigningKey {
  /** What `git commit-tree --gpg-sign=` and gpg take: a key id, fingerprint or user id. */
  keyId: string;
  name: string;
  email: string;
}

/** The instance key for verification: its armored public key(s) as gpg exports them, and the signer. */
export interface InstanceVerificationKey {
  armoredKeys: string;
  name: string;
  email: string;
}

export interface InstanceSigning {
  /** The key merges sign with; undefined when there is none (Gitea's `wont sign: nokey`). */
  signingKey(): Promise<SigningKey | undefined>;
  /** The key's public part for ParseCommitWithSignature's default-key check; undefined without a usable key. */
  verificationKey(): Promise<InstanceVerificationKey | undefined>;
  /** Environment and `-c` settings for git commands that sign (gpg with the configured GNUPGHOME). */
  gitEnv: NodeJS.ProcessEnv;
  gitConfig: readonly string[];
  /** Whether a signed merge's committer is the signer (Gitea: the committer and collaboratorcommitter trust models). */
  signerCommits: boolean;
  /** `[repository.signing] MERGES`. */
  merges: readonly MergeSigningRule[];
}

/** How long an exported public key (or its absence) is reused before gpg is asked again. */
const KEY_CACHE_MS = 60_000;

/** `git config --file <home>/.gitconfig` for one key; "" when unset (or the file is missing). */
async function homeConfig(home: string, key: string, type?: 'bool'): Promise<string> {
  const args = ['config', '--file', path.join(home, '.gitconfig'), ...(type === undefined ? [] : [`--type=${type}`]), '--get', key];
  // 1: unset or no such file; 128: a value git cannot read as a bool. Either way: no value.
  const { stdout, exitCode } = await runGit(args, { okExitCodes: [0, 1, 128] });
  return exitCode === 0 ? stdout.toString('utf8').trim() : '';
}

/**
 * The key's armored public part; "" when the keyring does not have it (gpg exits 0 and prints nothing). gpg failing
 * (missing, an unreadable or broken GNUPGHOME) rejects with gpg's own words: that is not "no key".
 */
function exportPublicKey(keyId: string, gnupgHome: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'gpg',
      ['--batch', '--no-tty', '--armor', '--export', '--', keyId],
      { env: { PATH: process.env.PATH, GNUPGHOME: gnupgHome, LANG: 'C', LC_ALL: 'C' }, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout.trim());
        else reject(new Error(`gpg --export ${keyId} (GNUPGHOME ${gnupgHome}) failed: ${stderr.trim() || error.message}`, { cause: error }));
      },
    );
  });
}

export function createInstanceSigning(config: SigningConfig, logger: Logger): InstanceSigning {
  let cached: { at: number; key: string; value: Promise<InstanceVerificationKey | undefined> } | undefined;

  async function signingKey(): Promise<SigningKey | undefined> {
    if (config.signingKey === 'none') return undefined;
    if (config.signingKey === 'default') {
      if ((await homeConfig(config.home, 'commit.gpgsign', 'bool')) !== 'true') return undefined;
      const keyId = await homeConfig(config.home, 'user.signingkey');
      if (keyId === '') return undefined;
      return { keyId, name: await homeConfig(config.home, 'user.name'), email: await homeConfig(config.home, 'user.email') };
    }
    return { keyId: config.signingKey, name: config.signingName, email: config.signingEmail };
  }

  return {
    signingKey,
    async verificationKey() {
      const key = await signingKey();
      if (key === undefined) return undefined;
      const now = Date.now();
      if (cached === undefined || cached.key !== key.keyId || now - cached.at > KEY_CACHE_MS) {
        const value = exportPublicKey(key.keyId, config.gnupgHome).then(
          (armored) => (armored === '' ? undefined : { armoredKeys: armored, name: key.name, email: key.email }),
          // As Gitea's ParseCommitWithSignature (models/asymkey/gpg_key_commit_verification.go): the failure is logged
          // and verification goes on without the default key. Not cached: the next call asks gpg again.
          (error: unknown) => {
            logger.error({ err: error, key_id: key.keyId, gnupg_home: config.gnupgHome }, 'reading the instance signing key failed');
            if (cached?.value === value) cached = undefined;
            return undefined;
          },
        );
        cached = { at: now, key: key.keyId, value };
      }
      const found = await cached.value;
      // The signer may have changed in the git home without the key changing.
      return found === undefined ? undefined : { ...found, name: key.name, email: key.email };
    },
    gitEnv: { GNUPGHOME: config.gnupgHome },
    gitConfig: ['-c', 'gpg.program=gpg', '-c', 'gpg.format=openpgp'],
    signerCommits: config.defaultTrustModel === 'committer' || config.defaultTrustModel === 'collaboratorcommitter',
    merges: config.merges,
  };
}
