import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A private nats-server (JetStream, file store) that a test can stop and start again to simulate an outage. */
export interface PrivateNatsServer {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and deletes its store. */
  dispose(): Promise<void>;
}

/** The nats-server binary: $CAIRN_TEST_NATS_SERVER, else the first on PATH or in the sbin directories. */
export function findNatsServer(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/local/sbin', '/usr/local/bin'];
  const candidates = [process.env.CAIRN_TEST_NATS_SERVER, ...dirs.filter(Boolean).map((d) => path.join(d, 'nats-server'))];
  return candidates.find((c): c is string => {
    if (c === undefined) return false;
    try {
      accessSync(c, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export interface PrivateNatsServerOptions {
  /** A nats-server configuration file (`-c`); address, port and store stay the ones chosen here. */
  configFile?: string;
  /** Variables the configuration reads (`$NAME`), added to this process's environment. */
  env?: Record<string, string>;
}

export async function startPrivateNatsServer(binary: string, options: PrivateNatsServerOptions = {}): Promise<PrivateNatsServer> {
  const port = await freePort();
  const storeDir = await mkdtemp(path.join(tmpdir(), 'cairn-bus-nats-'));
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    const config = options.configFile === undefined ? [] : ['-c', options.configFile];
    const started = spawn(binary, [...config, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...options.env },
    });
    child = started;
    // A server that exits (a bad configuration, a taken port) fails the test with its own words.
    let stderr = '';
    started.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    const exited = new Promise<never>((_, reject) => {
      started.once('exit', (code) => reject(new Error(`nats-server exited (${String(code)}) before listening: ${stderr.trim()}`)));
    });
    exited.catch(() => undefined);
    await Promise.race([waitForPort(port, true), exited]);
  }

  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  }

  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    start,
    stop,
    async dispose() {
      await stop();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForPort(port: number, open: boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const reachable = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (reachable === open) return;
    if (Date.now() > deadline) throw new Error(`nats-server port ${port} did not ${open ? 'open' : 'close'}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
