import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type GpgKeyring, createGpgKeyring } from '@cairn/testing';
import { type GitStorageHarness, PUSHER, git, gitOk, rule, startGitStorage } from './harness';

let h: GitStorageHarness;
let keyring: GpgKeyring;
/** Alice's key, registered with (the fake) accounts. */
let aliceKey: string;
/** A key accounts does not know. */
let strangerKey: string;

beforeAll(async () => {
  h = await startGitStorage();
  keyring = createGpgKeyring();
  aliceKey = keyring.generateKey('Alice <alice@example.com>');
  strangerKey = keyring.generateKey('Alice Impostor <alice@example.com>');
  const listing = keyring.listKey(aliceKey);
  h.keys.push({
    email: 'alice@example.com',
    userId: PUSHER.pusherId,
    publicKey: keyring.exportPublicKey(aliceKey),
    keyIds: [listing.keyId, ...listing.subkeys.map((subkey) => subkey.keyId)],
  });
});

afterAll(async () => {
  keyring.dispose();
  await h.stop();
});

interface Setup {
  id: number;
  work: string;
}

/** A repository whose main has one commit (pushed before any rule), and a working copy of it. */
async function setup(): Promise<Setup> {
  const id = await h.createEmpty();
  const work = path.join(h.scratch('work'), 'repo');
  await gitOk(['init', '--quiet', '--initial-branch=main', work]);
  await commit(work, 'base.txt', 'base');
  await gitOk(['push', '--quiet', h.url(id), 'main'], { cwd: work });
  return { id, work };
}

async function commit(work: string, file: string, content: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const full = path.join(work, file);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, `${content}\n`);
  await gitOk(['add', '.'], { cwd: work });
  await gitOk([...extra, 'commit', '--quiet', '-m', `change ${file}`], { cwd: work, env });
  return gitOk(['rev-parse', 'HEAD'], { cwd: work });
}

/** Commits signed with `key` (git asks the keyring's gpg). */
const signedWith = (key: string) => ['-c', `user.signingkey=${key}`, '-c', 'gpg.program=gpg', '-c', 'commit.gpgSign=true'];

const serverRef = (id: number, ref: string) => git(['--git-dir', h.gitDir(id), 'rev-parse', '--verify', '--quiet', ref]);
const hasObject = async (id: number, sha: string) => (await git(['--git-dir', h.gitDir(id), 'cat-file', '-e', sha])).code === 0;

describe('protected branches on push', () => {
  it('refuses a push to a branch the pusher may not push to, keeping the objects out of the repository', async () => {
    const { id, work } = await setup();
    h.policies.set(id, { push: PUSHER, rules: [rule('main', { canPush: false })] });
    const before = (await serverRef(id, 'refs/heads/main')).stdout.trim();
    const sha = await commit(work, 'a.txt', 'a');
    const events = (await h.pushedEvents()).length;

    const run = await git(['push', h.url(id), 'main'], { cwd: work });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('remote: Not allowed to push to protected branch main');
    expect(run.stderr).toContain('! [remote rejected] main -> main (pre-receive hook declined)');
    expect((await serverRef(id, 'refs/heads/main')).stdout.trim()).toBe(before);
    // Refused objects never leave git's quarantine.
    expect(await hasObject(id, sha)).toBe(false);
    expect((await h.pushedEvents()).length).toBe(events);

    // Other branches are not covered by the rule.
    await gitOk(['push', '--quiet', h.url(id), 'main:refs/heads/feature'], { cwd: work });
    expect((await serverRef(id, 'refs/heads/feature')).stdout.trim()).toBe(sha);
  });

  it('refuses the whole push when one of its updates is refused', async () => {
    const { id, work } = await setup();
    h.policies.set(id, { push: PUSHER, rules: [rule('release/*', { canPush: false })] });
    await commit(work, 'b.txt', 'b');
    const run = await git(['push', h.url(id), 'main', 'main:refs/heads/release/1.0'], { cwd: work });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('remote: Not allowed to push to protected branch release/1.0');
    expect((await serverRef(id, 'refs/heads/release/1.0')).code).not.toBe(0);
    // `*` stays within one path segment.
    await gitOk(['push', '--quiet', h.url(id), 'main:refs/heads/release/1.0/hotfix'], { cwd: work });
  });

  it('refuses a force push unless the rule allows it, and takes fast-forwards', async () => {
    const { id, work } = await setup();
    h.policies.set(id, { push: PUSHER, rules: [rule('main', { canForcePush: false })] });
    await commit(work, 'c.txt', 'c');
    await gitOk(['push', '--quiet', h.url(id), 'main'], { cwd: work });
    const pushed = await gitOk(['rev-parse', 'HEAD'], { cwd: work });

    await gitOk(['reset', '--quiet', '--hard', 'HEAD~1'], { cwd: work });
    await commit(work, 'd.txt', 'rewritten');
    const forced = await git(['push', '--force', h.url(id), 'main'], { cwd: work });
    expect(forced.code).not.toBe(0);
    expect(forced.stderr).toContain('remote: branch main is protected from force push');
    expect((await serverRef(id, 'refs/heads/main')).stdout.trim()).toBe(pushed);

    h.policies.set(id, { push: PUSHER, rules: [rule('main', { canForcePush: true })] });
    await gitOk(['push', '--quiet', '--force', h.url(id), 'main'], { cwd: work });
    expect((await serverRef(id, 'refs/heads/main')).stdout.trim()).toBe(await gitOk(['rev-parse', 'HEAD'], { cwd: work }));
  });

  it('refuses deleting a protected branch', async () => {
    const { id, work } = await setup();
    h.policies.set(id, { push: PUSHER, rules: [rule('main', { canDelete: false })] });
    await gitOk(['push', '--quiet', h.url(id), 'main:refs/heads/temp'], { cwd: work });
    const run = await git(['push', h.url(id), ':refs/heads/main'], { cwd: work });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('remote: branch main is protected from deletion');
    expect((await serverRef(id, 'refs/heads/main')).code).toBe(0);
    await gitOk(['push', '--quiet', h.url(id), ':refs/heads/temp'], { cwd: work });
  });

  it('refuses changes to protected files', async () => {
    const { id, work } = await setup();
    h.policies.set(id, { push: PUSHER, rules: [rule('main', { protectedFilePatterns: 'docs/*.md; secrets/**' })] });
    await commit(work, 'secrets/deep/key.txt', 'k');
    const run = await git(['push', h.url(id), 'main'], { cwd: work });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('remote: branch main is protected from changing file secrets/deep/key.txt');
    await gitOk(['reset', '--quiet', '--hard', 'HEAD~1'], { cwd: work });
    await commit(work, 'docs/sub/readme.md', 'not covered: * stays within a segment');
    await gitOk(['push', '--quiet', h.url(id), 'main'], { cwd: work });
  });

  it('lets a pusher the rule does not let push change only unprotected files', async () => {
    const { id, work } = await setup();
    h.policies.set(id, { push: PUSHER, rules: [rule('main', { canPush: false, unprotectedFilePatterns: 'docs/**; *.md' })] });
    await commit(work, 'docs/guide/intro.txt', 'intro');
    const allowed = await commit(work, 'NOTES.MD', 'notes');
    await gitOk(['push', '--quiet', h.url(id), 'main'], { cwd: work });
    expect((await serverRef(id, 'refs/heads/main')).stdout.trim()).toBe(allowed);

    await commit(work, 'docs/more.txt', 'more');
    await commit(work, 'src/code.txt', 'code');
    const run = await git(['push', h.url(id), 'main'], { cwd: work });
    expect(run.stderr).toContain('remote: Not allowed to push to protected branch main');
    expect((await serverRef(id, 'refs/heads/main')).stdout.trim()).toBe(allowed);
  });

  describe('require_signed_commits', () => {
    const signedRule = () => [rule('main', { requireSignedCommits: true })];

    it('takes commits signed with a key registered for the committer', async () => {
      const { id, work } = await setup();
      h.policies.set(id, { push: PUSHER, rules: signedRule() });
      await commit(work, 's1.txt', 'one', signedWith(aliceKey), keyring.env);
      const head = await commit(work, 's2.txt', 'two', signedWith(aliceKey), keyring.env);
      expect(await gitOk(['cat-file', 'commit', head], { cwd: work })).toContain('gpgsig -----BEGIN PGP SIGNATURE-----');
      await gitOk(['push', '--quiet', h.url(id), 'main'], { cwd: work });
      expect((await serverRef(id, 'refs/heads/main')).stdout.trim()).toBe(head);
    });

    it('refuses an unsigned commit, naming it', async () => {
      const { id, work } = await setup();
      h.policies.set(id, { push: PUSHER, rules: signedRule() });
      await commit(work, 's1.txt', 'signed', signedWith(aliceKey), keyring.env);
      const unsigned = await commit(work, 'u.txt', 'unsigned');
      const run = await git(['push', h.url(id), 'main'], { cwd: work });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(`remote: branch main is protected from unverified commit ${unsigned}`);
      expect(run.stderr).toContain('(pre-receive hook declined)');
      expect(await hasObject(id, unsigned)).toBe(false);
    });

    it('refuses a commit signed with a key nobody registered, or by a committer the key does not belong to', async () => {
      const { id, work } = await setup();
      h.policies.set(id, { push: PUSHER, rules: signedRule() });
      const stranger = await commit(work, 'x.txt', 'x', signedWith(strangerKey), keyring.env);
      const run = await git(['push', h.url(id), 'main'], { cwd: work });
      expect(run.stderr).toContain(`remote: branch main is protected from unverified commit ${stranger}`);

      await gitOk(['reset', '--quiet', '--hard', 'HEAD~1'], { cwd: work });
      const bob = { ...keyring.env, GIT_COMMITTER_NAME: 'Bob', GIT_COMMITTER_EMAIL: 'bob@example.com' };
      const otherCommitter = await commit(work, 'y.txt', 'y', signedWith(aliceKey), bob);
      const second = await git(['push', h.url(id), 'main'], { cwd: work });
      expect(second.stderr).toContain(`remote: branch main is protected from unverified commit ${otherCommitter}`);
    });

    it('checks only the commits a new branch adds', async () => {
      const { id, work } = await setup();
      h.policies.set(id, { push: PUSHER, rules: [rule('signed/*', { requireSignedCommits: true })] });
      // The unsigned base commit is already in the repository; only the new one must be signed.
      await commit(work, 'n.txt', 'new', signedWith(aliceKey), keyring.env);
      await gitOk(['push', '--quiet', h.url(id), 'main:refs/heads/signed/topic'], { cwd: work });
    });
  });
});

describe('protected tags on push', () => {
  it('refuses creating, moving and deleting a tag a rule protects unless a matching rule allows the pusher', async () => {
    const { id, work } = await setup();
    h.policies.set(id, {
      push: PUSHER,
      rules: [],
      tagRules: [
        { namePattern: 'v*', allowed: false },
        { namePattern: '/^v1\\./', allowed: true },
      ],
    });
    await gitOk(['tag', 'v2.0'], { cwd: work });
    const created = await git(['push', h.url(id), 'v2.0'], { cwd: work });
    expect(created.code).not.toBe(0);
    expect(created.stderr).toContain('remote: Tag v2.0 is protected');
    expect((await serverRef(id, 'refs/tags/v2.0')).code).not.toBe(0);

    // `/^v1\./` allows the pusher what `v*` alone would not; tags no rule matches are anyone's.
    await gitOk(['tag', 'v1.0'], { cwd: work });
    await gitOk(['tag', 'nightly'], { cwd: work });
    await gitOk(['push', '--quiet', h.url(id), 'v1.0', 'nightly'], { cwd: work });

    // Pushed before the rule, then moved and deleted under it.
    h.policies.set(id, { push: PUSHER, rules: [] });
    await gitOk(['push', '--quiet', h.url(id), 'v2.0'], { cwd: work });
    h.policies.set(id, { push: PUSHER, rules: [], tagRules: [{ namePattern: 'v*', allowed: false }] });
    await commit(work, 'e.txt', 'e');
    await gitOk(['tag', '--force', 'v2.0'], { cwd: work });
    const moved = await git(['push', '--force', h.url(id), 'v2.0'], { cwd: work });
    expect(moved.stderr).toContain('remote: Tag v2.0 is protected');
    const deleted = await git(['push', h.url(id), ':refs/tags/v2.0'], { cwd: work });
    expect(deleted.code).not.toBe(0);
    expect(deleted.stderr).toContain('remote: Tag v2.0 is protected');
    expect((await serverRef(id, 'refs/tags/v2.0')).code).toBe(0);
  });
});
