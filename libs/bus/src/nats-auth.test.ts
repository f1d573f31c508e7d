/**
 * `[bus]` credentials on the real connect path (connectNatsBus) against private nats-servers that require them:
 * an nkey seed file (read at connect, trailing line break and all) and a token. User/password is covered with the
 * generated per-service permissions in deploy/nats.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nkeys } from '@nats-io/transport-node';
import { silentLogger } from '@cairn/log';
import { connectNatsBus } from './nats-bus';
import { findNatsServer, startPrivateNatsServer, type PrivateNatsServer } from './test-support/nats-server';

const binary = findNatsServer();
const logger = silentLogger();

(binary === undefined ? describe.skip : describe)('NATS credentials', () => {
  let dir: string;
  const servers: PrivateNatsServer[] = [];

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-nats-auth-'));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.dispose()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function serverWith(name: string, config: string): Promise<PrivateNatsServer> {
    const configFile = path.join(dir, `${name}.conf`);
    fs.writeFileSync(configFile, config);
    const server = await startPrivateNatsServer(binary!, { configFile });
    servers.push(server);
    return server;
  }

  /** Connects, proves JetStream answers (a stream is created) and closes; rejects when the server refuses. */
  async function works(options: Parameters<typeof connectNatsBus>[0]): Promise<void> {
    const bus = await connectNatsBus({ ...options, logger, requestTimeoutMs: 2_000 });
    try {
      await bus.ensureStream('AUTH_TEST', ['auth.test.>']);
    } finally {
      await bus.close();
    }
  }

  it('authenticates with an nkey seed file', async () => {
    const user = nkeys.createUser();
    const server = await serverWith('nkey', `authorization: { users: [ { nkey: ${user.getPublicKey()} } ] }\n`);
    const seedFile = path.join(dir, 'user.nk');
    fs.writeFileSync(seedFile, `${new TextDecoder().decode(user.getSeed())}\n`);
    await expect(works({ url: server.url, logger, auth: { kind: 'nkey', seedFile } })).resolves.toBeUndefined();

    const other = path.join(dir, 'other.nk');
    fs.writeFileSync(other, new TextDecoder().decode(nkeys.createUser().getSeed()));
    await expect(works({ url: server.url, logger, auth: { kind: 'nkey', seedFile: other } })).rejects.toThrow(/authorization violation/i);
    await expect(works({ url: server.url, logger, auth: { kind: 'nkey', seedFile: path.join(dir, 'missing.nk') } })).rejects.toThrow(
      /cannot read NATS credentials file/,
    );
  });

  it('authenticates with a token', async () => {
    const server = await serverWith('token', 'authorization: { token: "s3cret-token" }\n');
    await expect(works({ url: server.url, logger, auth: { kind: 'token', token: 's3cret-token' } })).resolves.toBeUndefined();
    await expect(works({ url: server.url, logger, auth: { kind: 'token', token: 'wrong' } })).rejects.toThrow(/authorization violation/i);
  });
});
