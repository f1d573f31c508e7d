/** outboundConnect against a real loopback listener that counts connections: refused targets are never reached. */
import * as net from 'node:net';
import { outboundConnect } from './connect';
import { OutboundRefusedError, type Resolver } from './guard';
import { parseHostMatchList } from './host-match';

let server: net.Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  server = net.createServer((socket) => {
    connections++;
    socket.on('error', () => undefined);
    socket.end('220 hello\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const policy = (allow: string[]) => ({ usage: 'mailer', allow: parseHostMatchList('mailer.SMTP_ADDR', allow) });
const toLoopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];

it('connects where the policy allows the resolved address', async () => {
  const before = connections;
  const socket = await outboundConnect(policy(['*']), { host: 'smtp.example.test', port, timeoutMs: 5_000, resolver: toLoopback });
  // The listener's greeting arrives only over a connection it accepted.
  const greeting = await new Promise<string>((resolve) => socket.once('data', (data: Buffer) => resolve(data.toString())));
  socket.destroy();
  expect(greeting).toBe('220 hello\r\n');
  expect(connections).toBe(before + 1);
});

it.each([['127.0.0.1'], ['smtp.example.test']])('refuses %s when its address is not allowed, without connecting', async (host) => {
  const before = connections;
  await expect(outboundConnect(policy(['external']), { host, port, timeoutMs: 5_000, resolver: toLoopback })).rejects.toBeInstanceOf(OutboundRefusedError);
  expect(connections).toBe(before);
});
