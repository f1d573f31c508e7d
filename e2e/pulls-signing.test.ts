/**
 * Signed merges end to end (`[repository.signing]`, Gitea's SignMerge): an instance configured with a throwaway
 * OpenPGP key (SIGNING_KEY = its fingerprint, GNUPGHOME = its keyring, MERGES = always) merges a pull request into
 * a branch whose protection requires signed commits through the gateway; the merge commit fetched with real git
 * carries a signature `git verify-commit` accepts, and the API shows it verified as signed by SIGNING_NAME. A merge
 * into an unprotected branch is signed too (Gitea signs whenever the rules allow). Refusals (`wont sign: <rule>`,
 * `nokey`) are covered by git-storage's merge-signing tests.
 */
import { createGpgKeyring, type GpgKeyring } from '@cairn/testing';
import { type PullWork, pullWork } from './support/pull-work';
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(240_000);

interface CommitVerification {
  commit: { verification: { verified: boolean; reason: string; signer: { name: string; email: string } | null; signature: string } };
}

describe('signed merges', () => {
  let keyring: GpgKeyring;
  let fingerprint: string;
  let fixture: Fixture;
  let w: PullWork;
  /** alice's clone of alice/demo. */
  let work: string;

  const alice = () => fixture.as('alice');
  const call: PullWork['call'] = (...args) => w.call(...args);
  /** git with the instance's keyring, to check signatures. */
  const verifyCommit = (sha: string) => w.git(['-c', 'gpg.program=gpg', 'verify-commit', sha], work);

  beforeAll(async () => {
    keyring = createGpgKeyring();
    fingerprint = keyring.generateKey('Cairn <cairn@example.com>');
    fixture = await startFixture('e2e_pulls_sign', ['alice'], {
      GNUPGHOME: keyring.home,
      CAIRN__repository_0X2E_signing__SIGNING_KEY: fingerprint,
      CAIRN__repository_0X2E_signing__SIGNING_NAME: 'Cairn',
      CAIRN__repository_0X2E_signing__SIGNING_EMAIL: 'cairn@example.com',
      CAIRN__repository_0X2E_signing__MERGES: 'always',
    });
    w = await pullWork(fixture);
    w.gitEnv.GNUPGHOME = keyring.home;
    expect((await call('POST', '/user/repos', alice(), { name: 'demo', auto_init: true })).status).toBe(201);
    work = await w.clone('alice/demo', 'alice', 'alice');
  });

  afterAll(async () => {
    w?.cleanUp();
    await fixture?.stop();
    // Stops the gpg-agent the instance's signing started, then removes the keyring.
    keyring?.dispose();
  });

  /** Merges pull request `index` with `style`; the merge commit's sha. */
  async function merge(index: number, style: string, base = 'main'): Promise<string> {
    const merged = await call('POST', `/repos/alice/demo/pulls/${index}/merge`, alice(), { do: style });
    expect(merged.status).toBe(200);
    const pull = await w.settled('alice/demo', index, alice(), (p) => p.merged);
    expect(pull.merge_commit_sha).toBe(await w.branchHead('alice/demo', base, alice()));
    return pull.merge_commit_sha ?? '';
  }

  it('signs the merge into a branch that requires signed commits; git and the API verify it', async () => {
    const rule = await call('POST', '/repos/alice/demo/branch_protections', alice(), { rule_name: 'main', enable_push: true, require_signed_commits: true });
    expect(rule.status).toBe(201);
    await w.pushBranch(work, 'feature', 'feature.txt', 'signed by the instance\n');
    const created = await w.createPull('alice/demo', 'feature', 'Add the feature', alice());
    await w.settled('alice/demo', created.number, alice(), (p) => p.mergeable);

    const sha = await merge(created.number, 'merge');
    await w.gitOk(['fetch', '--quiet', 'origin'], work);
    expect(await w.gitOk(['cat-file', 'commit', sha], work)).toContain('\ngpgsig -----BEGIN PGP SIGNATURE-----');
    const verified = await verifyCommit(sha);
    expect(verified.code).toBe(0);
    expect(verified.stderr).toContain('Good signature from "Cairn <cairn@example.com>"');
    // The merger stays the committer (the collaborator trust model, Gitea's default).
    expect(await w.gitOk(['show', '-s', '--format=%ce', sha], work)).toBe('alice@example.com');

    const shown = await call<CommitVerification>('GET', `/repos/alice/demo/git/commits/${sha}`, alice());
    expect(shown.status).toBe(200);
    expect(shown.body.commit.verification).toMatchObject({
      verified: true,
      reason: `Cairn / ${keyring.listKey(fingerprint).keyId}`,
      signer: { name: 'Cairn', email: 'cairn@example.com' },
    });
  });

  it('signs a squash merge into a branch without protection as well', async () => {
    await w.pushBranch(work, 'develop', 'develop.txt', 'develop\n');
    await w.pushBranch(work, 'topic', 'topic.txt', 'topic\n', 'origin/develop');
    const created = await w.createPull('alice/demo', 'topic', 'Add the topic', alice(), 'develop');
    await w.settled('alice/demo', created.number, alice(), (p) => p.mergeable);

    const sha = await merge(created.number, 'squash', 'develop');
    await w.gitOk(['fetch', '--quiet', 'origin'], work);
    expect((await verifyCommit(sha)).code).toBe(0);
  });
});
