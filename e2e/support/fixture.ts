/**
 * The usual end-to-end set-up in one call: the built supervisor on its own PostgreSQL database (the machine's
 * NATS unless `env` says otherwise), the administrator `root` created with the CLI, and users created through the
 * admin API, all with the same password. `stop()` takes everything down again.
 */
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { apiClient, type ApiClient } from './client';
import { baseEnv, basicAuth, cleanUpWorkDir, makeWorkDir, runCli, startInstance, type Instance } from './instance';

export const ROOT_PASSWORD = 'root-pass-123';
export const USER_PASSWORD = 'user-pass-123';

export interface Fixture {
  database: TestDatabase;
  workDir: string;
  instance: Instance;
  api: ApiClient;
  env: NodeJS.ProcessEnv;
  /** Basic-auth headers of the administrator. */
  root: Record<string, string>;
  /** Basic-auth headers of one of the users. */
  as(username: string): Record<string, string>;
  stop(): Promise<void>;
}

/** Starts an instance for the test file `prefix` (its database name) with `users` besides root. */
export async function startFixture(prefix: string, users: readonly string[], extraEnv: Record<string, string> = {}): Promise<Fixture> {
  const database = await createTestDatabase(prefix);
  const workDir = makeWorkDir();
  const env = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__server__HTTP_PORT: '0', ...extraEnv });
  let instance: Instance | undefined;
  try {
    instance = await startInstance(workDir, env);
    const api = apiClient(instance.httpUrl);
    const created = await runCli(['admin', 'user', 'create', '--username', 'root', '--password', ROOT_PASSWORD, '--email', 'root@example.com', '--admin'], env);
    if (created.code !== 0) throw new Error(`could not create root: ${created.stderr}`);
    const root = basicAuth('root', ROOT_PASSWORD);
    for (const username of users) {
      const made = await api.request('POST', '/api/v1/admin/users', {
        headers: root,
        body: { username, email: `${username}@example.com`, password: USER_PASSWORD, must_change_password: false },
      });
      if (made.status !== 201) throw new Error(`could not create ${username}: ${made.status} ${JSON.stringify(made.body)}`);
    }
    const running = instance;
    return {
      database,
      workDir,
      instance: running,
      api,
      env,
      root,
      as: (username) => basicAuth(username, USER_PASSWORD),
      async stop() {
        await cleanUpWorkDir(workDir, [running]);
        await database.drop();
      },
    };
  } catch (error) {
    await cleanUpWorkDir(workDir, instance === undefined ? [] : [instance]);
    await database.drop();
    throw error;
  }
}
