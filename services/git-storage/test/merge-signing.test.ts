/**
 * Signed merges (`[repository.signing]`, Gitea's SignMerge): the instance key from a throwaway GNUPGHOME signs the
 * merge, squash and rebase styles' new commits so that `git verify-commit` accepts them; each MERGES rule refuses
 * ("wont sign: <rule>") when the signature is required and lets an unsigned merge through when it is not; `nokey`
 * for SIGNING_KEY = none and an unconfigured default; the git home's key for SIGNING_KEY = default; and commits
 * the instance signed verify through CommitService, whoever their committer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { MergeSigningRule, SigningConfig } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { type MergeRequest, MergeServiceService, type Signature } from '@cairn/proto/cairn/git/v1/git_service';
import { Code, type RpcClient, type RpcServer, createRpcClient, createRpcServer, anyCaller } from '@cairn/rpc';
import { createGpgKeyring, type GpgKeyring } from '@cairn/testing';
import { createInstanceSigning } from '../src/git/signing';
import { createMergeService } from '../src/rpc/merge-service';
import { type GitStorageFixture, PUSH, type TestRepository, git, identityAt, rejection, startGitStorageFixture } from './git-repo-fixture';

let fixture: GitStorageFixture;
let server: RpcServer;
let merges: RpcClient<typeof MergeServiceService>;
let keyring: GpgKeyring;
let home: string;
/** The instance key and a user's key (Cid, user 42, cid@example.com, registered in the fake accounts). */
let instanceKey: string;
let cidKey: string;

const CID = 42;
const T0 = 1_700_000_000;
const MERGER: Signature = { name: 'Merger', email: 'merger@example.com', when: new Date('2024-05-06T07:08:09Z'), timezone: '+0000' };

function signing(fields: Partial<SigningConfig> = {}): SigningConfig {
  return {
    signingKey: instanceKey,
    signingName: 'Cairn',
    signingEmail: 'cairn@example.com',
    format: 'openpgp',
    merges: ['always'],
    defaultTrustModel: 'collaborator',
    home,
    gnupgHome: keyring.home,
    ...fields,
  };
}

/** Signs merges from now on with `fields` over the default test settings. */
function configure(fields: Partial<SigningConfig> = {}): void {
  fixture.context.signing = createInstanceSigning(signing(fields), silentLogger());
}

beforeAll(async () => {
  keyring = createGpgKeyring();
  instanceKey = keyring.generateKey('Cairn <cairn@example.com>');
  cidKey = keyring.generateKey('Cid <cid@example.com>');
  home = mkdtempSync(path.join(tmpdir(), 'cairn-signing-home-'));
  fixture = await startGitStorageFixture();
  const cidPublicKey = keyring.exportPublicKey(cidKey);
  fixture.context.gpgKeys = {
    // accounts: Cid registered his key; nobody else has one.
    findVerificationKeys: async ({ emails }) => ({
      keys: emails.filter((email) => email === 'cid@example.com').map((email) => ({ email, userId: CID, publicKey: cidPublicKey, keyIds: [] })),
    }),
    listGpgKeys: async ({ userId }) => ({ keys: [], total: userId === CID ? 1 : 0 }),
  };
  server = createRpcServer({ service: 'git-storage', logger: silentLogger() });
  server.addService(MergeServiceService, createMergeService(fixture.context), anyCaller(MergeServiceService));
  const port = await server.start('127.0.0.1:0');
  merges = createRpcClient(MergeServiceService, { target: `127.0.0.1:${port}`, service: 'git-storage', caller: 'gateway', logger: silentLogger(), deadlineMs: 30_000 });
});

afterAll(async () => {
  merges?.close();
  await server?.stop(0);
  await fixture?.stop();
  // Stops the gpg-agent the signing started, then removes the keyring.
  keyring?.dispose();
  rmSync(home, { recursive: true, force: true });
});

const rev = (repo: TestRepository, spec: string) => git(['rev-parse', spec], { cwd: repo.gitDir }).stdout.trim();
const show = (repo: TestRepository, format: string, spec: string) => git(['show', '-s', `--format=${format}`, spec], { cwd: repo.gitDir }).stdout.trim();
const gpgEnv = () => ({ GNUPGHOME: keyring.home });

/** Whether `git verify-commit` accepts `sha` with the test keyring. */
function verifies(repo: TestRepository, sha: string): boolean {
  try {
    git(['-c', 'gpg.program=gpg', 'verify-commit', sha], { cwd: repo.gitDir, env: gpgEnv() });
    return true;
  } catch {
    return false;
  }
}

const hasSignature = (repo: TestRepository, sha: string) => git(['cat-file', 'commit', sha], { cwd: repo.gitDir }).stdout.includes('\ngpgsig -----BEGIN PGP SIGNATURE-----');

/** A commit on top of `parent` (same tree) committed by Cid and signed with `key`; `branch` moves to it. */
function signedCommitOn(repo: TestRepository, branch: string, key: string, message: string): string {
  const parent = rev(repo, `refs/heads/${branch}`);
  const sha = git(['-c', 'gpg.program=gpg', 'commit-tree', '-p', parent, `--gpg-sign=${key}`, '-m', message, `${parent}^{tree}`], {
    cwd: repo.gitDir,
    env: { ...identityAt(T0 + 300, '+0000', 'Cid', 'cid@example.com'), ...gpgEnv() },
  }).stdout.trim();
  git(['update-ref', `refs/heads/${branch}`, sha], { cwd: repo.gitDir });
  return sha;
}

/** main: root (a.txt), then one more commit; feature: two commits from root. All unsigned. */
function diverged() {
  const repo = fixture.newRepository();
  const [root] = fixture.commitOn(repo, 'main', [{ files: { 'a.txt': 'a\n' }, message: 'root', at: T0 }]);
  git(['update-ref', 'refs/heads/feature', root!], { cwd: repo.gitDir });
  const feature = fixture.commitOn(repo, 'feature', [
    { files: { 'f.txt': 'f\n' }, message: 'feature one', at: T0 + 60 },
    { files: { 'g.txt': 'g\n' }, message: 'feature two', at: T0 + 120 },
  ]);
  const [mainTip] = fixture.commitOn(repo, 'main', [{ files: { 'm.txt': 'm\n' }, message: 'main moves', at: T0 + 180 }]);
  return { repo, root: root!, feature, mainTip: mainTip! };
}

function mergeRequest(repo: TestRepository, style: string, fields: Partial<MergeRequest> = {}): MergeRequest {
  return {
    repository: repo.repository,
    baseBranch: 'main',
    head: 'refs/heads/feature',
    style,
    expectedHeadCommitId: '',
    message: `Merge feature (${style})`,
    author: MERGER,
    committer: MERGER,
    push: PUSH,
    sign: true,
    requireSigned: true,
    approved: false,
    ...fields,
  };
}

/** The refusal of a required signature under `rules`. */
async function refusalUnder(rules: MergeSigningRule[], repo: TestRepository, fields: Partial<MergeRequest> = {}): Promise<string> {
  configure({ merges: rules });
  const before = rev(repo, 'main');
  const error = await rejection(merges.merge(mergeRequest(repo, 'merge', fields)));
  expect([error.code, error.reason]).toEqual([Code.FAILED_PRECONDITION, 'wont_sign']);
  // Nothing written.
  expect(rev(repo, 'main')).toBe(before);
  return error.message;
}

describe('signed merges', () => {
  it('signs merge and squash commits with the instance key; git verify-commit accepts them', async () => {
    configure();
    const { repo, mainTip, feature } = diverged();
    const { mergeCommitId } = await merges.merge(mergeRequest(repo, 'merge'));
    expect(rev(repo, 'main')).toBe(mergeCommitId);
    expect(show(repo, '%P', mergeCommitId)).toBe(`${mainTip} ${feature[1]}`);
    expect(hasSignature(repo, mergeCommitId)).toBe(true);
    expect(verifies(repo, mergeCommitId)).toBe(true);
    // The collaborator trust model (the default) keeps the merger as committer.
    expect(show(repo, '%an <%ae> / %cn <%ce>', mergeCommitId)).toBe('Merger <merger@example.com> / Merger <merger@example.com>');
    expect(git(['log', '-1', '--format=%GF', mergeCommitId], { cwd: repo.gitDir, env: gpgEnv() }).stdout.trim()).toBe(instanceKey);

    const squashed = diverged();
    const squash = await merges.merge(mergeRequest(squashed.repo, 'squash'));
    expect(show(squashed.repo, '%P', squash.mergeCommitId)).toBe(squashed.mainTip);
    expect(verifies(squashed.repo, squash.mergeCommitId)).toBe(true);
  });

  it('signs the replayed commits of the rebase styles, and writes nothing to sign for a fast-forward', async () => {
    configure();
    const rebased = diverged();
    const rebase = await merges.merge(mergeRequest(rebased.repo, 'rebase'));
    const replayed = git(['rev-list', `${rebased.mainTip}..${rebase.mergeCommitId}`], { cwd: rebased.repo.gitDir }).stdout.trim().split('\n');
    expect(replayed).toHaveLength(2);
    for (const sha of replayed) expect(verifies(rebased.repo, sha)).toBe(true);

    const explicit = diverged();
    const rebaseMerge = await merges.merge(mergeRequest(explicit.repo, 'rebase-merge'));
    const all = git(['rev-list', `${explicit.mainTip}..${rebaseMerge.mergeCommitId}`], { cwd: explicit.repo.gitDir }).stdout.trim().split('\n');
    expect(all).toHaveLength(3);
    for (const sha of all) expect(verifies(explicit.repo, sha)).toBe(true);

    const ahead = fixture.newRepository();
    const [root] = fixture.commitOn(ahead, 'main', [{ files: { 'a.txt': 'a\n' }, message: 'root', at: T0 }]);
    git(['update-ref', 'refs/heads/feature', root!], { cwd: ahead.gitDir });
    const [tip] = fixture.commitOn(ahead, 'feature', [{ files: { 'b.txt': 'b\n' }, message: 'ahead', at: T0 + 60 }]);
    const forward = await merges.merge(mergeRequest(ahead, 'fast-forward-only'));
    expect(forward.mergeCommitId).toBe(tip);
    expect(hasSignature(ahead, tip!)).toBe(false);
  });

  it('makes the signer the committer under the committer trust models', async () => {
    configure({ defaultTrustModel: 'collaboratorcommitter' });
    const { repo } = diverged();
    const { mergeCommitId } = await merges.merge(mergeRequest(repo, 'merge'));
    expect(show(repo, '%an <%ae> / %cn <%ce>', mergeCommitId)).toBe('Merger <merger@example.com> / Cairn <cairn@example.com>');
    expect(verifies(repo, mergeCommitId)).toBe(true);
  });

  it('verifies commits the instance signed, whoever committed them, as signed by SIGNING_NAME / EMAIL', async () => {
    configure();
    const { repo } = diverged();
    const { mergeCommitId } = await merges.merge(mergeRequest(repo, 'merge'));
    const { commit } = await fixture.commits.getCommit({ repository: repo.repository, revision: mergeCommitId, withStats: false, withVerification: true });
    expect(commit?.verification).toEqual({
      verified: true,
      reason: '',
      signerEmail: 'cairn@example.com',
      signerUserId: 0,
      keyId: keyring.listKey(instanceKey).keyId,
      signerName: 'Cairn',
    });
    // A pull request's commit list verifies too: the merge commit is signed, the branch's own commit is not.
    const between = await merges.listCommitsBetween({
      repository: repo.repository,
      base: 'refs/heads/feature',
      head: mergeCommitId,
      page: { page: 1, limit: 0 },
      withFiles: false,
      withVerification: true,
    });
    expect(between.commits.map((c) => [c.sha === mergeCommitId, c.verification?.verified])).toContainEqual([true, true]);
    expect(between.commits.filter((c) => c.sha !== mergeCommitId).every((c) => c.verification?.reason === 'gpg.error.not_signed_commit')).toBe(true);
    // Without the key configured, the same commit matches no registered key.
    configure({ signingKey: 'none' });
    const again = await fixture.commits.getCommit({ repository: repo.repository, revision: mergeCommitId, withStats: false, withVerification: true });
    expect(again.commit?.verification).toMatchObject({ verified: false, reason: 'gpg.error.no_gpg_keys_found' });
  });
});

describe('MERGES rules', () => {
  it('refuses with "never" and with "twofa" (Cairn has no two-factor enrolment)', async () => {
    const { repo } = diverged();
    expect(await refusalUnder(['never'], repo)).toBe('wont sign: never');
    expect(await refusalUnder(['twofa'], repo, { push: { ...PUSH, pusherId: CID } })).toBe('wont sign: twofa');
  });

  it('"pubkey" needs a GPG key of the merger; "approved" needs the caller\'s approval fact', async () => {
    const { repo } = diverged();
    expect(await refusalUnder(['pubkey'], repo)).toBe('wont sign: pubkey');
    expect(await refusalUnder(['pubkey', 'approved'], repo, { push: { ...PUSH, pusherId: CID } })).toBe('wont sign: approved');
    configure({ merges: ['pubkey', 'approved'] });
    const { mergeCommitId } = await merges.merge(mergeRequest(repo, 'merge', { push: { ...PUSH, pusherId: CID }, approved: true }));
    expect(verifies(repo, mergeCommitId)).toBe(true);
  });

  it('"basesigned", "headsigned" and "commitssigned" need verified commits; the instance\'s own signature counts', async () => {
    const { repo } = diverged();
    expect(await refusalUnder(['basesigned'], repo)).toBe('wont sign: basesigned');
    expect(await refusalUnder(['headsigned'], repo)).toBe('wont sign: headsigned');
    expect(await refusalUnder(['commitssigned'], repo)).toBe('wont sign: commitssigned');

    // A head signed by its committer's registered key: headsigned passes, but the older feature commits are unsigned.
    signedCommitOn(repo, 'feature', cidKey, 'signed head');
    expect(await refusalUnder(['headsigned', 'commitssigned'], repo)).toBe('wont sign: commitssigned');
    // A key nobody registered for the committer verifies nothing.
    const other = diverged();
    signedCommitOn(other.repo, 'feature', keyring.generateKey('Stray <stray@example.com>'), 'stray signature');
    expect(await refusalUnder(['headsigned'], other.repo)).toBe('wont sign: headsigned');

    // Merged with headsigned: main's tip is now the instance's merge commit, which basesigned accepts.
    configure({ merges: ['headsigned'] });
    const first = await merges.merge(mergeRequest(repo, 'merge'));
    expect(verifies(repo, first.mergeCommitId)).toBe(true);
    fixture.commitOn(repo, 'feature', [{ files: { 'h.txt': 'h\n' }, message: 'more', at: T0 + 400 }]);
    signedCommitOn(repo, 'feature', cidKey, 'signed again');
    configure({ merges: ['basesigned', 'headsigned'] });
    const second = await merges.merge(mergeRequest(repo, 'merge'));
    expect(verifies(repo, second.mergeCommitId)).toBe(true);

    // Every commit since the merge base signed (by Cid): commitssigned passes.
    const clean = diverged();
    git(['update-ref', 'refs/heads/feature', clean.root], { cwd: clean.repo.gitDir });
    signedCommitOn(clean.repo, 'feature', cidKey, 'one');
    signedCommitOn(clean.repo, 'feature', cidKey, 'two');
    configure({ merges: ['commitssigned'] });
    const all = await merges.merge(mergeRequest(clean.repo, 'merge'));
    expect(verifies(clean.repo, all.mergeCommitId)).toBe(true);
  });

  it('stops at the first refusing rule and accepts at "always" (rules as listed; the config keeps "always" alone)', async () => {
    const { repo } = diverged();
    expect(await refusalUnder(['approved', 'never'], repo)).toBe('wont sign: approved');
    expect(await refusalUnder(['pubkey', 'always'], repo)).toBe('wont sign: pubkey');
    configure({ merges: ['always', 'pubkey'] });
    const { mergeCommitId } = await merges.merge(mergeRequest(repo, 'merge'));
    expect(verifies(repo, mergeCommitId)).toBe(true);
  });

  it('writes the merge unsigned when a rule refuses and the signature is not required', async () => {
    configure({ merges: ['never'] });
    const { repo } = diverged();
    const { mergeCommitId } = await merges.merge(mergeRequest(repo, 'merge', { requireSigned: false }));
    expect(rev(repo, 'main')).toBe(mergeCommitId);
    expect(hasSignature(repo, mergeCommitId)).toBe(false);
    // Not asked to sign at all: unsigned too, even under "always".
    configure({ merges: ['always'] });
    const plain = diverged();
    const unsigned = await merges.merge(mergeRequest(plain.repo, 'merge', { sign: false, requireSigned: false }));
    expect(hasSignature(plain.repo, unsigned.mergeCommitId)).toBe(false);
  });
});

describe('the signing key', () => {
  it('is none with SIGNING_KEY = none, and with "default" until the git home configures one', async () => {
    const { repo } = diverged();
    configure({ signingKey: 'none' });
    expect((await rejection(merges.merge(mergeRequest(repo, 'merge')))).message).toBe('wont sign: nokey');
    const unsigned = await merges.merge(mergeRequest(repo, 'merge', { requireSigned: false }));
    expect(hasSignature(repo, unsigned.mergeCommitId)).toBe(false);

    const other = diverged();
    configure({ signingKey: 'default' });
    expect((await rejection(merges.merge(mergeRequest(other.repo, 'merge')))).message).toBe('wont sign: nokey');
    const config = ['config', '--file', path.join(home, '.gitconfig')];
    git([...config, 'user.signingkey', instanceKey]);
    // A key without commit.gpgsign is still no key (Gitea's SigningKey).
    expect((await rejection(merges.merge(mergeRequest(other.repo, 'merge')))).message).toBe('wont sign: nokey');
    git([...config, 'commit.gpgsign', 'yes']);
    git([...config, 'user.name', 'Home Signer']);
    git([...config, 'user.email', 'home@example.com']);
    configure({ signingKey: 'default', defaultTrustModel: 'committer' });
    const { mergeCommitId } = await merges.merge(mergeRequest(other.repo, 'merge'));
    expect(verifies(other.repo, mergeCommitId)).toBe(true);
    expect(show(other.repo, '%cn <%ce>', mergeCommitId)).toBe('Home Signer <home@example.com>');
    const { commit } = await fixture.commits.getCommit({ repository: other.repo.repository, revision: mergeCommitId, withStats: false, withVerification: true });
    expect(commit?.verification).toMatchObject({ verified: true, signerName: 'Home Signer', signerEmail: 'home@example.com', signerUserId: 0 });
  });
});
