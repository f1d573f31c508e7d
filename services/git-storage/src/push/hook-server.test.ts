import { execFile } from 'node:child_process';
import path from 'node:path';
import { silentLogger } from '@cairn/log';
import { type HookRequest, type HookServer, startHookServer } from './hook-server';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

let hooks: HookServer;

beforeAll(async () => {
  hooks = await startHookServer(silentLogger());
});

afterAll(async () => {
  await hooks.stop();
});

/** Runs the installed pre-receive hook as git would. */
function runHook(env: NodeJS.ProcessEnv, stdin: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(path.join(hooks.hooksDir, 'pre-receive'), [], { env: { PATH: process.env.PATH, ...env } }, (error, _stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number(error.code), stderr }),
    );
    child.stdin?.end(stdin);
  });
}

/** Runs the installed update hook as git does, once per ref: `update <ref> <old> <new>`. */
function runUpdateHook(ref: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(path.join(hooks.hooksDir, 'update'), [ref, A, B], { env: { PATH: process.env.PATH } }, (error, _stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number(error.code), stderr }),
    );
  });
}

const quarantine = { GIT_OBJECT_DIRECTORY: '/q/objects', GIT_ALTERNATE_OBJECT_DIRECTORIES: '/r/objects', GIT_QUARANTINE_PATH: '/q' };

describe('pre-receive hook server', () => {
  it('hands the updates and quarantine to the session and relays an acceptance', async () => {
    const seen: HookRequest[] = [];
    const session = hooks.openSession(async (request) => {
      seen.push(request);
      return { accepted: true };
    });
    try {
      const run = await runHook({ ...session.env, ...quarantine }, `${A} ${B} refs/heads/main\n`);
      expect(run).toEqual({ code: 0, stderr: '' });
      expect(seen).toEqual([{ updates: [{ oldSha: A, newSha: B, ref: 'refs/heads/main' }], quarantine }]);
    } finally {
      session.close();
    }
  });

  it('prints a refusal and exits non-zero', async () => {
    const session = hooks.openSession(async () => ({ accepted: false, message: 'branch main is protected from force push' }));
    try {
      const run = await runHook({ ...session.env, ...quarantine }, `${A} ${B} refs/heads/main\n`);
      expect(run).toEqual({ code: 1, stderr: 'branch main is protected from force push\n' });
    } finally {
      session.close();
    }
  });

  it('refuses a hook of an unknown or closed push, a failing check, and no server at all', async () => {
    const session = hooks.openSession(async () => ({ accepted: true }));
    const env = session.env;
    session.close();
    expect(await runHook({ ...env, ...quarantine }, `${A} ${B} refs/heads/main\n`)).toEqual({
      code: 1,
      stderr: 'internal error: unknown push\n',
    });

    const failing = hooks.openSession(async () => {
      throw new Error('accounts is down');
    });
    try {
      const run = await runHook({ ...failing.env, ...quarantine }, `${A} ${B} refs/heads/main\n`);
      expect(run).toEqual({ code: 1, stderr: 'internal error: the push could not be checked\n' });
    } finally {
      failing.close();
    }

    const run = await runHook({ CAIRN_HOOK_SOCKET: '/nonexistent/hook.sock', CAIRN_PUSH_ID: 'x' }, '');
    expect(run.code).toBe(1);
  });

  it('refuses input that is not git’s', async () => {
    const checked: HookRequest[] = [];
    const session = hooks.openSession(async (request) => {
      checked.push(request);
      return { accepted: true };
    });
    try {
      const run = await runHook({ ...session.env, ...quarantine }, 'garbage\n');
      expect(run.code).toBe(1);
      expect(checked).toEqual([]);
    } finally {
      session.close();
    }
  });

  it('installs an update hook that accepts branches and tags and declines every other ref', async () => {
    expect(await runUpdateHook('refs/heads/main')).toEqual({ code: 0, stderr: '' });
    expect(await runUpdateHook('refs/tags/v1')).toEqual({ code: 0, stderr: '' });
    for (const ref of ['refs/pull/1/head', 'refs/for/main', 'refs/headsX/main']) {
      expect(await runUpdateHook(ref)).toEqual({ code: 1, stderr: `refusing ${ref}: a push may only update refs/heads/ and refs/tags/\n` });
    }
  });
});
