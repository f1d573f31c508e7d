/**
 * Plain `git` against the built supervisor over smart HTTP: clone, commit, push and fetch (protocol v2 and v0,
 * password and token credentials); a private repository refused without credentials; a push without write access
 * refused; a push to a protected branch refused with git's own line shown; the signed-commit rule (a commit
 * signed with a key registered through /user/gpg_keys passes, an unsigned one does not); and the API seeing what
 * was pushed.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createGpgKeyring, createTestDatabase, type GpgKeyring, type TestDatabase } from '@cairn/testing';
import { apiClient, type ApiClient, type ApiResponse } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, gitTestEnv, type Instance, makeWorkDir, runCli, startInstance } from './support/instance';

jest.setTimeout(180_000);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('git over smart HTTP', () => {
  let database: TestDatabase;
  let workDir: string;
  let instance: Instance;
  let api: ApiClient;
  let scratch: string;
  let gitEnv: NodeJS.ProcessEnv;
  let keyring: GpgKeyring | undefined;

  const root = basicAuth('root', 'root-pass-123');
  const password = 'user-pass-123';
  const as = (name: string) => basicAuth(name, password);
  let aliceToken = '';
  let aliceReadToken = '';

  function call<T = unknown>(method: string, apiPath: string, headers?: Record<string, string>, body?: unknown): Promise<ApiResponse<T>> {
    return api.request<T>(method, `/api/v1${apiPath}`, { headers, body });
  }

  /** `http://[user:secret@]host:port/<repo>.git` */
  function remote(repo: string, user?: string, secret = password): string {
    const url = new URL(`${instance.httpUrl}/${repo}.git`);
    if (user !== undefined) {
      url.username = user;
      url.password = secret;
    }
    return url.toString();
  }

  function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = gitEnv): Promise<Run> {
    return new Promise((resolve) => {
      execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout: stdout.toString(), stderr: stderr.toString() });
      });
    });
  }

  const git = (args: string[], cwd = scratch) => run('git', args, cwd);

  async function gitOk(args: string[], cwd = scratch): Promise<string> {
    const result = await git(args, cwd);
    if (result.code !== 0) throw new Error(`git ${args.join(' ')} failed (${result.code}):\n${result.stderr}`);
    return result.stdout;
  }

  /** A fresh directory under the scratch area. */
  function dir(name: string): string {
    const made = path.join(scratch, name);
    fs.mkdirSync(made, { recursive: true });
    return made;
  }

  async function commitFile(cwd: string, file: string, text: string): Promise<string> {
    fs.mkdirSync(path.dirname(path.join(cwd, file)), { recursive: true });
    fs.writeFileSync(path.join(cwd, file), text);
    await gitOk(['add', '--', file], cwd);
    await gitOk(['commit', '--quiet', '--message', `change ${file}`], cwd);
    return (await gitOk(['rev-parse', 'HEAD'], cwd)).trim();
  }

  beforeAll(async () => {
    database = await createTestDatabase('e2e_git_http');
    workDir = makeWorkDir();
    const env = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__server__HTTP_PORT: '0' });
    instance = await startInstance(workDir, env);
    api = apiClient(instance.httpUrl);
    expect((await runCli(['admin', 'user', 'create', '--username', 'root', '--password', 'root-pass-123', '--email', 'root@example.com', '--admin'], env)).code).toBe(0);
    for (const username of ['alice', 'bob', 'carol']) {
      const made = await call('POST', '/admin/users', root, { username, email: `${username}@example.com`, password, must_change_password: false });
      expect(made.status).toBe(201);
    }
    for (const [name, isPrivate] of [
      ['pub', false],
      ['priv', true],
    ] as const) {
      expect((await call('POST', '/user/repos', as('alice'), { name, private: isPrivate })).status).toBe(201);
    }
    // bob reads alice/priv, carol reads only public repositories.
    expect((await call('PUT', '/repos/alice/priv/collaborators/bob', as('alice'), { permission: 'read' })).status).toBe(204);
    const token = await call<{ sha1: string }>('POST', '/users/alice/tokens', as('alice'), { name: 'git', scopes: ['write:repository', 'write:user'] });
    expect(token.status).toBe(201);
    aliceToken = token.body.sha1;
    const readToken = await call<{ sha1: string }>('POST', '/users/alice/tokens', as('alice'), { name: 'read', scopes: ['read:repository'] });
    aliceReadToken = readToken.body.sha1;

    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-git-http-'));
    const home = dir('home');
    gitEnv = gitTestEnv(home);
    await gitOk(['config', '--global', 'init.defaultBranch', 'main']);
  });

  afterAll(async () => {
    keyring?.dispose();
    if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
    if (workDir !== undefined) await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database?.drop();
  });

  it('clones an empty repository, pushes commits and fetches them into another clone', async () => {
    const first = path.join(scratch, 'first');
    const clone = await git(['clone', remote('alice/pub', 'alice'), first]);
    expect(clone.code).toBe(0);
    expect(clone.stderr).toContain('empty repository');
    const one = await commitFile(first, 'README.md', '# pub\n');
    await commitFile(first, 'src/app.txt', 'app\n');
    const head = await commitFile(first, 'src/lib/util.txt', 'util\n');
    expect(await gitOk(['push', '--quiet', 'origin', 'main'], first)).toBe('');

    // Anonymous clone of the public repository, protocol v2 (git's default) and v0.
    for (const version of ['2', '0']) {
      const copy = path.join(scratch, `copy-v${version}`);
      await gitOk(['-c', `protocol.version=${version}`, 'clone', '--quiet', remote('alice/pub'), copy]);
      expect((await gitOk(['rev-parse', 'HEAD'], copy)).trim()).toBe(head);
      expect(fs.readFileSync(path.join(copy, 'src/lib/util.txt'), 'utf8')).toBe('util\n');
    }

    // A second writer clone with a token as the password; its push is fetched by the first clone.
    const second = path.join(scratch, 'second');
    await gitOk(['clone', '--quiet', remote('alice/pub', 'alice', aliceToken), second]);
    const next = await commitFile(second, 'CHANGELOG.md', 'v1\n');
    await gitOk(['push', '--quiet', 'origin', 'main'], second);
    await gitOk(['fetch', '--quiet', 'origin'], first);
    expect((await gitOk(['rev-parse', 'origin/main'], first)).trim()).toBe(next);
    expect((await gitOk(['log', '--format=%H', 'origin/main'], first)).trim().split('\n')).toContain(one);

    // New branches and tags arrive too, and the API sees what was pushed.
    await gitOk(['push', '--quiet', 'origin', 'main:feature/x'], second);
    await gitOk(['tag', 'v1.0', next], second);
    await gitOk(['push', '--quiet', 'origin', 'v1.0'], second);
    const branches = await call<Array<{ name: string; commit: { id: string } }>>('GET', '/repos/alice/pub/branches');
    expect(branches.body.map((branch) => [branch.name, branch.commit.id]).sort()).toEqual([
      ['feature/x', next],
      ['main', next],
    ]);
    const tag = await call<{ commit: { sha: string } }>('GET', '/repos/alice/pub/tags/v1.0');
    expect(tag.body.commit.sha).toBe(next);
    const raw = await api.request('GET', '/api/v1/repos/alice/pub/raw/CHANGELOG.md');
    expect(raw.body).toBe('v1\n');
  });

  it('refuses a private repository without credentials, and hides it from those who may not read it', async () => {
    const anonymous = await git(['ls-remote', remote('alice/priv')]);
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stderr).toMatch(/could not read Username|Authentication failed/);
    const carol = await git(['ls-remote', remote('alice/priv', 'carol')]);
    expect(carol.code).not.toBe(0);
    expect(carol.stderr).toContain('Repository not found');
    const wrongPassword = await git(['ls-remote', remote('alice/priv', 'alice', 'not-the-password')]);
    expect(wrongPassword.code).not.toBe(0);
    expect(wrongPassword.stderr).toContain('Authentication failed');
    // Readers may clone it.
    expect((await git(['ls-remote', remote('alice/priv', 'bob')])).code).toBe(0);
  });

  it('refuses pushes without write access, and tokens without the write scope', async () => {
    const work = path.join(scratch, 'priv-work');
    await gitOk(['clone', '--quiet', remote('alice/priv', 'alice'), work]);
    await commitFile(work, 'a.txt', 'a\n');
    await gitOk(['push', '--quiet', 'origin', 'main'], work);
    await commitFile(work, 'b.txt', 'b\n');

    const byReader = await git(['push', remote('alice/priv', 'bob'), 'main'], work);
    expect(byReader.code).not.toBe(0);
    expect(byReader.stderr).toContain('User permission denied for writing.');
    const byStranger = await git(['push', remote('alice/priv', 'carol'), 'main'], work);
    expect(byStranger.code).not.toBe(0);
    expect(byStranger.stderr).toContain('Repository not found');
    const anonymous = await git(['push', remote('alice/pub'), 'HEAD:refs/heads/anonymous'], work);
    expect(anonymous.code).not.toBe(0);
    const readToken = await git(['push', remote('alice/priv', 'alice', aliceReadToken), 'main'], work);
    expect(readToken.code).not.toBe(0);
    expect(readToken.stderr).toContain('403');
    // Nothing moved.
    const main = await call<{ commit: { message: string } }>('GET', '/repos/alice/priv/branches/main', as('alice'));
    expect(main.body.commit.message.trim()).toBe('change a.txt');
  });

  it("refuses a push to a protected branch with git's own error line", async () => {
    const work = path.join(scratch, 'protected');
    await gitOk(['clone', '--quiet', remote('alice/pub', 'alice'), work]);
    const before = (await gitOk(['rev-parse', 'HEAD'], work)).trim();
    const rule = await call('POST', '/repos/alice/pub/branch_protections', as('alice'), { rule_name: 'main', enable_push: false });
    expect(rule.status).toBe(201);
    await commitFile(work, 'blocked.txt', 'no\n');
    const pushed = await git(['push', 'origin', 'main'], work);
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toContain('remote: Not allowed to push to protected branch main');
    expect(pushed.stderr).toMatch(/! \[remote rejected\] +main -> main \(pre-receive hook declined\)/);
    // Force pushes and deletions of a protected branch are refused as well.
    const deleted = await git(['push', 'origin', ':main'], work);
    expect(deleted.code).not.toBe(0);
    expect(deleted.stderr).toContain('remote: branch main is protected from deletion');
    const main = await call<{ commit: { id: string } }>('GET', '/repos/alice/pub/branches/main');
    expect(main.body.commit.id).toBe(before);
    // Other branches still take pushes.
    expect((await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/unprotected'], work)).code).toBe(0);
    expect((await call('DELETE', '/repos/alice/pub/branch_protections/main', as('alice'))).status).toBe(204);
  });

  it('follows a renamed repository from its former address, for fetches and pushes', async () => {
    expect((await call('POST', '/user/repos', as('alice'), { name: 'before', auto_init: true })).status).toBe(201);
    expect((await call('PATCH', '/repos/alice/before', as('alice'), { name: 'after' })).status).toBe(200);
    const copy = path.join(scratch, 'renamed');
    await gitOk(['clone', '--quiet', remote('alice/before', 'alice'), copy]);
    expect(fs.existsSync(path.join(copy, 'README.md'))).toBe(true);
    const pushed = await commitFile(copy, 'moved.txt', 'moved\n');
    await gitOk(['push', '--quiet', 'origin', 'main'], copy);
    const main = await call<{ commit: { id: string } }>('GET', '/repos/alice/after/branches/main');
    expect(main.body.commit.id).toBe(pushed);
  });

  it('takes only commits signed with a registered key on a branch that requires signatures', async () => {
    keyring = createGpgKeyring();
    const fingerprint = keyring.generateKey('Alice <alice@example.com>', { algorithm: 'ed25519', usage: 'sign' });
    const registered = await call('POST', '/user/gpg_keys', as('alice'), { armored_public_key: keyring.exportPublicKey(fingerprint) });
    expect(registered.status).toBe(201);

    expect((await call('POST', '/repos/alice/pub/branch_protections', as('alice'), { rule_name: 'signed', enable_push: true, require_signed_commits: true })).status).toBe(
      201,
    );
    const work = path.join(scratch, 'signing');
    await gitOk(['clone', '--quiet', remote('alice/pub', 'alice'), work]);
    await gitOk(['checkout', '--quiet', '-b', 'signed'], work);

    const unsigned = await commitFile(work, 'unsigned.txt', 'u\n');
    const refused = await git(['push', 'origin', 'signed'], work);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`remote: branch signed is protected from unverified commit ${unsigned}`);

    await gitOk(['reset', '--quiet', '--hard', 'HEAD~1'], work);
    // git signs through gpg with the keyring's GNUPGHOME.
    const signingEnv = { ...gitEnv, GNUPGHOME: keyring.home };
    const signing = ['-c', 'gpg.program=gpg', '-c', `user.signingkey=${fingerprint}`];
    fs.writeFileSync(path.join(work, 'signed.txt'), 's\n');
    await gitOk(['add', '--', 'signed.txt'], work);
    expect((await run('git', [...signing, 'commit', '--quiet', '-S', '--message', 'signed change'], work, signingEnv)).code).toBe(0);
    const signed = (await gitOk(['rev-parse', 'HEAD'], work)).trim();
    expect((await run('git', ['verify-commit', signed], work, signingEnv)).code).toBe(0);
    expect((await git(['push', 'origin', 'signed'], work)).code).toBe(0);
    const branch = await call<{ commit: { id: string } }>('GET', '/repos/alice/pub/branches/signed');
    expect(branch.body.commit.id).toBe(signed);

    // The API verifies the signature against alice's key (Gitea: "<signer> / <key id>"); the parent is unsigned.
    interface CommitVerification {
      commit: { verification: { verified: boolean; reason: string; signer: { name: string; email: string } | null; signature: string } };
    }
    const shown = await call<CommitVerification>('GET', `/repos/alice/pub/git/commits/${signed}`);
    expect(shown.status).toBe(200);
    expect(shown.body.commit.verification).toMatchObject({
      verified: true,
      reason: `alice / ${keyring.listKey(fingerprint).keyId}`,
      signer: { name: 'alice', email: 'alice@example.com' },
    });
    expect(shown.body.commit.verification.signature).toContain('-----BEGIN PGP SIGNATURE-----');
    const parent = (await gitOk(['rev-parse', `${signed}^`], work)).trim();
    const plain = await call<CommitVerification>('GET', `/repos/alice/pub/git/commits/${parent}`);
    expect(plain.body.commit.verification).toMatchObject({ verified: false, reason: 'gpg.error.not_signed_commit', signer: null, signature: '' });
    const listed = await call<CommitVerification[]>('GET', '/repos/alice/pub/commits?sha=signed&limit=2');
    expect(listed.body.map((commit) => commit.commit.verification.verified)).toEqual([true, false]);
  });
});
