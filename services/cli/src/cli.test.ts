import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli, type CliIo } from './cli';
import { serviceOf } from './commands/dump-repo';
import { createUserRequest } from './commands/user-create';

// runCli must not reach a database here: the command's path to accounts is replaced.
// The requests the replaced path was given (jest lets a mock factory use outer names starting with "mock").
const mockCreated: unknown[] = [];
jest.mock('./accounts-access', () => ({
  withUserService: jest.fn(async (_options: unknown, work: (client: unknown) => Promise<string>) =>
    work({
      createUser: async (request: unknown) => {
        mockCreated.push(request);
        return { user: { id: 7, login: 'ann' } };
      },
    }),
  ),
}));

function io(env: NodeJS.ProcessEnv = {}): CliIo & { out: string; err: string } {
  const result = {
    env: { CAIRN_WORK_DIR: '/nonexistent/cairn-cli-test', ...env },
    cwd: '/',
    out: '',
    err: '',
    stdout: (text: string) => (result.out += text),
    stderr: (text: string) => (result.err += text),
  };
  return result;
}

const create = ['admin', 'user', 'create', '--username', 'ann', '--password', 'pw-123456', '--email', 'ann@example.com'];

describe('runCli', () => {
  it('creates the user and prints its id', async () => {
    const out = io();
    expect(await runCli(create, out)).toBe(0);
    expect(out.out).toBe('user "ann" created (id 7)\n');
  });

  it('creates the user restricted when [service] DEFAULT_USER_IS_RESTRICTED says so and no flag does', async () => {
    mockCreated.splice(0);
    expect(await runCli(create, io({ CAIRN__service__DEFAULT_USER_IS_RESTRICTED: 'true' }))).toBe(0);
    expect(await runCli([...create, '--restricted=false'], io({ CAIRN__service__DEFAULT_USER_IS_RESTRICTED: 'true' }))).toBe(0);
    expect(await runCli(create, io())).toBe(0);
    expect(mockCreated.map((request) => (request as { restricted: boolean }).restricted)).toEqual([true, false, false]);
  });

  it('exits 2 with a one-line message on a usage error', async () => {
    const out = io();
    expect(await runCli(['admin', 'user', 'create', '--username', 'ann'], out)).toBe(2);
    expect(out.err).toBe('cairn: missing required flags --password, --email (see "cairn admin user create --help")\n');
  });

  it('exits 2 on a configuration error', async () => {
    const out = io({ CAIRN__server__HTTP_PORT: 'not-a-port' });
    expect(await runCli(create, out)).toBe(2);
    expect(out.err).toMatch(/^cairn: config error: .*HTTP_PORT/);
  });

  it('restore-repo fails (exit 1) naming the directory when the dump is not there, before contacting any instance', async () => {
    const out = io();
    const missing = path.join(tmpdir(), 'cairn-cli-no-such-dump');
    expect(await runCli(['restore-repo', '-r', missing, '--owner_name', 'alice', '--repo_name', 'tools'], out)).toBe(1);
    expect(out.err).toBe(`cairn: Failed to restore repository: ${missing} does not exist\n`);
  });

  it('restore-repo needs --owner_name and --repo_name (exit 2)', async () => {
    const out = io();
    expect(await runCli(['restore-repo', '-r', 'x'], out)).toBe(2);
    expect(out.err).toMatch(/missing required flags --owner_name, --repo_name/);
  });

  it('restore-repo refuses an unknown --units name (exit 2) before the dump is read or anything is sent', async () => {
    const out = io();
    // The dump directory does not exist either: the usage error comes first.
    const missing = path.join(tmpdir(), 'cairn-cli-no-such-dump');
    expect(await runCli(['restore-repo', '-r', missing, '--owner_name', 'alice', '--repo_name', 'tools', '--units', 'issues, Wikis'], out)).toBe(2);
    expect(out.err).toBe('cairn: invalid unit: wikis (see "cairn restore-repo --help")\n');
  });

  it('dump-repo defaults --git_service by clone_addr as Gitea does, keeping a given one', () => {
    expect(serviceOf('', 'https://github.com/alice/tools.git')).toBe('github');
    expect(serviceOf('', 'HTTPS://GitLab.com/alice/tools')).toBe('gitlab');
    expect(serviceOf('', 'https://gitea.com/alice/tools')).toBe('gitea');
    // Only those https prefixes (cmd/dump_repo.go): another host or http is plain git.
    expect(serviceOf('', 'http://github.com/alice/tools')).toBe('git');
    expect(serviceOf('', 'https://github.com.example.net/alice/tools')).toBe('git');
    expect(serviceOf('', 'https://git.example.com/alice/tools')).toBe('git');
    expect(serviceOf('git', 'https://github.com/alice/tools')).toBe('git');
    expect(serviceOf('GitLab', 'https://git.example.com/alice/tools')).toBe('gitlab');
    expect(() => serviceOf('onedev', 'https://git.example.com/alice/tools')).toThrow('--git_service onedev is not available');
  });

  it('writes the service identity keys an operator distributes, never replacing one', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cairn-cli-keys-'));
    try {
      const out = io();
      expect(await runCli(['keys', 'generate', '--dir', dir, '--identity', 'repos'], out)).toBe(0);
      expect(out.out).toBe(`keys created in ${dir}: repos\n`);
      expect(readdirSync(dir).sort()).toEqual(['repos.key', 'repos.pub']);
      expect(statSync(path.join(dir, 'repos.key')).mode & 0o777).toBe(0o600);
      const again = io();
      expect(await runCli(['keys', 'generate', '--dir', dir, '--identity', 'repos'], again)).toBe(0);
      expect(again.out).toBe(`keys already present in ${dir}\n`);
      const wrong = io();
      expect(await runCli(['keys', 'generate', '--dir', dir, '--identity', 'hacker'], wrong)).toBe(2);
      expect(wrong.err).toMatch(/^cairn: unknown identity "hacker"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints help on --help (exit 0) and usage without a command (exit 2)', async () => {
    const help = io();
    expect(await runCli(['admin', 'user', 'create', '--help'], help)).toBe(0);
    expect(help.out).toContain('--must-change-password');
    expect(await runCli([], io())).toBe(2);
  });
});

describe('createUserRequest', () => {
  const defaults = { restricted: false };

  it('creates a usable account unless a password change is asked for', () => {
    const request = createUserRequest({ username: 'ann', password: 'pw', email: 'a@b.c', admin: true }, defaults);
    expect(request).toMatchObject({ username: 'ann', password: 'pw', email: 'a@b.c', isAdmin: true, restricted: false, mustChangePassword: false, fullName: '' });
    expect(createUserRequest({ username: 'b', password: 'p', email: 'e', 'must-change-password': true, restricted: true }, defaults)).toMatchObject({
      mustChangePassword: true,
      restricted: true,
    });
  });

  it('restricts the user as [service] DEFAULT_USER_IS_RESTRICTED says unless --restricted is given', () => {
    const user = { username: 'c', password: 'p', email: 'e' };
    expect(createUserRequest(user, { restricted: true }).restricted).toBe(true);
    expect(createUserRequest({ ...user, restricted: false }, { restricted: true }).restricted).toBe(false);
    expect(createUserRequest({ ...user, restricted: true }, { restricted: false }).restricted).toBe(true);
    expect(createUserRequest(user, { restricted: false }).restricted).toBe(false);
  });
});
