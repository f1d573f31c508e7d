/**
 * `GET /api/v1/user` with `Authorization: token …`: the gateway's authentication (token cache, accounts'
 * AuthenticateToken on a miss) and the user's JSON, against a node:http server doing the token lookup
 * itself with one `pg` query per request.
 */
import { DEFAULT_TARGETS, type LoadScenario } from './types';

export const userScenario: LoadScenario = {
  kind: 'load',
  name: 'user',
  description: 'token auth; baseline: node:http + one pg query per request',
  setup: async (context) => {
    const user = await context.benchUser();
    return { headers: { authorization: `token ${user.token}` } };
  },
  cairn: { method: 'GET', path: '/api/v1/user' },
  baseline: {
    start: (context) =>
      context.startBaseline('user', {
        BENCH_DATABASE_URL: context.databaseUrl,
        BENCH_POOL_SIZE: String(context.poolSize),
        BENCH_ROOT_URL: context.rootUrl,
      }),
  },
  targets: DEFAULT_TARGETS,
};
