import type { FindVerificationKeysRequest } from '@cairn/proto/cairn/accounts/v1/gpg_keys_service';
import type { GetCommitRequest, ListCommitsRequest } from '@cairn/proto/cairn/git/v1/git_service';
import { Code } from '@cairn/rpc';
import { createGpgKeyring } from '@cairn/testing';
import { type GitStorageFixture, type TestRepository, git, rejection, startGitStorageFixture } from './git-repo-fixture';

let fixture: GitStorageFixture;

beforeAll(async () => {
  fixture = await startGitStorageFixture();
});

afterAll(async () => {
  await fixture.stop();
});

const T0 = 1_700_000_000;

function listCommits(repo: TestRepository, options: Partial<ListCommitsRequest>) {
  return fixture.commits.listCommits({ repository: repo.repository, revision: 'main', path: '', page: 1, limit: 50, withStats: false, withVerification: false, ...options });
}

function getCommit(repo: TestRepository, revision: string, options: Partial<GetCommitRequest> = {}) {
  return fixture.commits.getCommit({ repository: repo.repository, revision, withStats: false, withVerification: false, ...options });
}

/** `count` linear commits on main through fast-import: commit i (1-based) at T0 + i minutes, touching f.txt. */
function fastImportHistory(gitDir: string, count: number): void {
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  let script = '';
  for (let i = 1; i <= count; i += 1) {
    script += `commit refs/heads/main\nmark :${i}\ncommitter Bulk <bulk@example.com> ${T0 + i * 60} +0000\n${data(`commit ${i}`)}`;
    if (i > 1) script += `from :${i - 1}\n`;
    script += `M 100644 inline f.txt\n${data(`line ${i}\n`)}`;
    if (i % 10 === 0) script += `M 100644 inline tens/${i}.txt\n${data(`${i}\n`)}`;
  }
  git(['fast-import', '--quiet'], { cwd: gitDir, env: { GIT_DIR: gitDir }, input: script });
}

describe('ListCommits', () => {
  const count = 3000;
  let repo: TestRepository;
  let expected: string[];

  beforeAll(() => {
    repo = fixture.newRepository();
    fastImportHistory(repo.gitDir, count);
    expected = git(['rev-list', 'main'], { cwd: repo.gitDir }).stdout.trim().split('\n');
  });

  it('pages through thousands of commits newest first with the total', async () => {
    const page = await listCommits(repo, { page: 30 });
    expect(page.total).toBe(count);
    expect(page.commits.map((commit) => commit.sha)).toEqual(expected.slice(29 * 50, 30 * 50));
    const first = await listCommits(repo, { revision: '', limit: 2 });
    expect(first.commits.map((commit) => commit.message)).toEqual([`commit ${count}`, `commit ${count - 1}`]);
    expect(first.commits[0]?.parentShas).toEqual([expected[1]]);
    const last = await listCommits(repo, { page: 60 });
    expect(last.commits.map((commit) => commit.sha)).toEqual(expected.slice(2950));
    expect(last.commits[49]?.parentShas).toEqual([]);
    const past = await listCommits(repo, { page: 61 });
    expect(past).toEqual({ commits: [], total: count });
  });

  it('filters by path and by committer time', async () => {
    const byPath = await listCommits(repo, { path: 'tens', limit: 5 });
    expect(byPath.total).toBe(count / 10);
    expect(byPath.commits.map((commit) => commit.message)).toEqual(['commit 3000', 'commit 2990', 'commit 2980', 'commit 2970', 'commit 2960']);
    const file = await listCommits(repo, { path: 'tens/20.txt', limit: 5 });
    expect(file.commits.map((commit) => commit.message)).toEqual(['commit 20']);

    const window = await listCommits(repo, { limit: 0, since: new Date((T0 + 100 * 60) * 1000), until: new Date((T0 + 104 * 60) * 1000) });
    expect(window.total).toBe(5);
    expect(window.commits.map((commit) => commit.message)).toEqual(['commit 104', 'commit 103', 'commit 102', 'commit 101', 'commit 100']);
  });

  it('treats path magic literally and refuses traversal', async () => {
    const magic = await listCommits(repo, { path: ':(glob)**', limit: 5 });
    expect(magic.total).toBe(0);
    const traversal = await rejection(listCommits(repo, { path: '../x', limit: 5 }));
    expect(traversal).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'invalid_path' });
  });
});

describe('stats, signatures and errors', () => {
  it('reports additions, deletions and files per commit, renames included', async () => {
    const repo = fixture.newRepository();
    const [first, second] = fixture.commitOn(repo, 'main', [
      { files: { 'a.txt': 'one\ntwo\nthree\n', 'b.bin': '\u0000\u0001binary', 'dir/c.txt': 'c\n' }, message: 'first', at: T0 },
      { files: { 'a.txt': 'one\n2\nthree\nfour\n', 'b.bin': null, 'dir/c.txt': null, 'dir/moved.txt': 'c\n' }, message: 'second', at: T0 + 60 },
    ]);
    const listed = await listCommits(repo, { limit: 10, withStats: true });
    const [latest, root] = listed.commits;
    expect(latest?.sha).toBe(second);
    expect(latest?.files).toEqual([
      { filename: 'a.txt', status: 'modified', additions: 2, deletions: 1, previousFilename: '' },
      { filename: 'b.bin', status: 'removed', additions: 0, deletions: 0, previousFilename: '' },
      { filename: 'dir/moved.txt', status: 'renamed', additions: 0, deletions: 0, previousFilename: 'dir/c.txt' },
    ]);
    expect([latest?.additions, latest?.deletions]).toEqual([2, 1]);
    expect(root?.sha).toBe(first);
    expect(root?.files.map((file) => [file.filename, file.status, file.additions])).toEqual([
      ['a.txt', 'added', 3],
      ['b.bin', 'added', 0],
      ['dir/c.txt', 'added', 1],
    ]);

    const single = await getCommit(repo, second!, { withStats: true });
    expect(single.commit?.files).toEqual(latest?.files);
    const plain = await getCommit(repo, 'main');
    expect(plain.commit?.files).toEqual([]);
    expect(plain.commit?.additions).toBe(0);
  });

  it('answers parents, identities with time zones, the exact message and the signed payload', async () => {
    const repo = fixture.newRepository();
    const [base] = fixture.commitOn(repo, 'main', [{ files: { 'a.txt': 'a' }, message: 'base', at: T0, timezone: '+0530' }]);
    const tree = git(['rev-parse', `${base}^{tree}`], { cwd: repo.gitDir }).stdout.trim();
    const signature = '-----BEGIN PGP SIGNATURE-----\n\niQEzBAABCAAdFiEE\n=abcd\n-----END PGP SIGNATURE-----';
    const payload =
      `tree ${tree}\nparent ${base}\n` +
      `author Ann Author <ann@example.com> ${T0 + 10} -0700\ncommitter Cid Committer <cid@example.com> ${T0 + 20} +0200\n` +
      '\nsigned subject\n\n  body with  spaces \n';
    const signedHeader = `gpgsig ${signature.split('\n').join('\n ')}\n`;
    const raw = payload.replace('\n\nsigned subject', `\n${signedHeader}\nsigned subject`);
    const signed = git(['hash-object', '-t', 'commit', '-w', '--stdin'], { cwd: repo.gitDir, input: raw }).stdout.trim();
    git(['update-ref', 'refs/heads/signed', signed], { cwd: repo.gitDir });

    const { commit } = await getCommit(repo, 'signed');
    expect(commit).toMatchObject({
      sha: signed,
      treeSha: tree,
      parentShas: [base],
      author: { name: 'Ann Author', email: 'ann@example.com', when: new Date((T0 + 10) * 1000), timezone: '-0700' },
      committer: { name: 'Cid Committer', email: 'cid@example.com', when: new Date((T0 + 20) * 1000), timezone: '+0200' },
      message: 'signed subject\n\n  body with  spaces \n',
      signature: `${signature}\n`,
      signedPayload: payload,
    });
    const unsigned = await getCommit(repo, base!.slice(0, 8));
    expect(unsigned.commit).toMatchObject({ sha: base, signature: '', signedPayload: '', author: { timezone: '+0530' } });
  });

  it('answers NOT_FOUND for unknown revisions, INVALID_ARGUMENT for option-like ones, FAILED_PRECONDITION for empty history', async () => {
    const repo = fixture.newRepository();
    fixture.commitOn(repo, 'main', [{ files: { 'a.txt': 'a' }, message: 'base', at: T0 }]);
    const unknown = await rejection(getCommit(repo, 'deadbeef'));
    expect(unknown).toMatchObject({ code: Code.NOT_FOUND, reason: 'revision_not_found' });
    const unknownList = await rejection(listCommits(repo, { revision: 'nope', limit: 5 }));
    expect(unknownList.code).toBe(Code.NOT_FOUND);
    for (const revision of ['--all', '-n1', 'main..main', 'main\nx']) {
      const error = await rejection(getCommit(repo, revision));
      expect(error).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'invalid_revision' });
    }
    const empty = fixture.newRepository();
    const emptyList = await rejection(listCommits(empty, { revision: '', limit: 5 }));
    expect(emptyList).toMatchObject({ code: Code.FAILED_PRECONDITION, reason: 'empty_repository' });
    const emptyGet = await rejection(getCommit(empty, 'main'));
    expect(emptyGet.code).toBe(Code.NOT_FOUND);
  });
});

describe('verification', () => {
  const keyring = createGpgKeyring();
  const asked: FindVerificationKeysRequest[] = [];
  let signer: string;
  let stranger: string;

  beforeAll(() => {
    signer = keyring.generateKey('Cid Committer <cid@example.com>');
    stranger = keyring.generateKey('Eve <eve@example.com>');
    const publicKey = keyring.exportPublicKey(signer);
    // accounts' answer: Cid (user 42) registered `signer`; nobody registered `stranger`.
    fixture.context.gpgKeys = {
      findVerificationKeys: async (request) => {
        asked.push(request);
        const keys = request.emails.filter((email) => email.toLowerCase() === 'cid@example.com');
        return { keys: keys.map((email) => ({ email, userId: 42, publicKey, keyIds: [keyring.listKey(signer).keyId] })) };
      },
      listGpgKeys: () => Promise.reject(new Error('not asked here')),
    };
  });

  afterAll(() => keyring.dispose());

  /** Writes a commit on top of `parent` committed by `email`, signed by `sign` (answering the armored signature). */
  function signedCommit(repo: TestRepository, parent: string, email: string, subject: string, sign: (payload: string) => string): string {
    const tree = git(['rev-parse', `${parent}^{tree}`], { cwd: repo.gitDir }).stdout.trim();
    const payload = `tree ${tree}\nparent ${parent}\nauthor A <${email}> ${T0} +0000\ncommitter C <${email}> ${T0} +0000\n\n${subject}\n`;
    const header = `gpgsig ${sign(payload).trimEnd().split('\n').join('\n ')}\n`;
    const raw = payload.replace(`\n\n${subject}`, `\n${header}\n${subject}`);
    return git(['hash-object', '-t', 'commit', '-w', '--stdin'], { cwd: repo.gitDir, input: raw }).stdout.trim();
  }

  it('verifies signatures against the committer\'s registered keys with one accounts call per page', async () => {
    const repo = fixture.newRepository();
    const [base] = fixture.commitOn(repo, 'main', [{ files: { 'a.txt': 'a' }, message: 'unsigned', at: T0 }]);
    const good = signedCommit(repo, base!, 'cid@example.com', 'good', (payload) => keyring.signDetached(signer, payload));
    const foreign = signedCommit(repo, good, 'cid@example.com', 'foreign', (payload) => keyring.signDetached(stranger, payload));
    const unknown = signedCommit(repo, foreign, 'eve@example.com', 'unknown', (payload) => keyring.signDetached(stranger, payload));
    const garbled = signedCommit(repo, unknown, 'cid@example.com', 'garbled', () => '-----BEGIN PGP SIGNATURE-----\n\nnot base64!\n-----END PGP SIGNATURE-----');
    git(['update-ref', 'refs/heads/main', garbled], { cwd: repo.gitDir });
    asked.length = 0;

    const { commits } = await listCommits(repo, { withVerification: true });
    expect(asked).toEqual([{ emails: ['cid@example.com', 'eve@example.com'] }]);
    const bySha = new Map(commits.map((commit) => [commit.sha, commit.verification]));
    const none = { signerEmail: '', signerUserId: 0, keyId: '', signerName: '' };
    expect(bySha.get(good)).toEqual({
      verified: true,
      reason: '',
      signerEmail: 'cid@example.com',
      signerUserId: 42,
      keyId: keyring.listKey(signer).keyId,
      signerName: '',
    });
    expect(bySha.get(foreign)).toEqual({ verified: false, reason: 'gpg.error.no_gpg_keys_found', ...none });
    expect(bySha.get(unknown)).toEqual({ verified: false, reason: 'gpg.error.no_gpg_keys_found', ...none });
    expect(bySha.get(garbled)).toEqual({ verified: false, reason: 'gpg.error.extract_sign', ...none });
    expect(bySha.get(base!)).toEqual({ verified: false, reason: 'gpg.error.not_signed_commit', ...none });

    const single = await getCommit(repo, good, { withVerification: true });
    expect(single.commit?.verification).toMatchObject({ verified: true, signerUserId: 42 });
    asked.length = 0;
    const plain = await getCommit(repo, good);
    expect(plain.commit?.verification).toBeUndefined();
    const unsignedOnly = await getCommit(repo, base!, { withVerification: true });
    expect(unsignedOnly.commit?.verification).toMatchObject({ verified: false, reason: 'gpg.error.not_signed_commit' });
    // Neither a commit without verification nor an unsigned one asks accounts.
    expect(asked).toEqual([]);
  });
});
