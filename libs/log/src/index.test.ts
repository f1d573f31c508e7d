import { Writable } from 'node:stream';
import { createLogger, currentRequestId, runWithRequestContext, sanitizeRequestId } from './index';

function capture(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()));
      cb();
    },
  });
  return { lines, stream };
}

describe('log', () => {
  it('writes one JSON line with service, level and the request id of the surrounding context', async () => {
    const { lines, stream } = capture();
    const log = createLogger({ service: 'accounts', destination: stream });
    runWithRequestContext({ requestId: 'req-1' }, () => log.info({ rpc: '/x' }, 'done'));
    log.info('outside');
    await new Promise((r) => setImmediate(r));
    expect(lines[0]).toMatchObject({ service: 'accounts', level: 'info', request_id: 'req-1', rpc: '/x', msg: 'done' });
    expect(lines[1].request_id).toBeUndefined();
  });

  it('keeps the request id across awaits', async () => {
    await runWithRequestContext({ requestId: 'abc' }, async () => {
      await new Promise((r) => setTimeout(r, 1));
      expect(currentRequestId()).toBe('abc');
    });
    expect(currentRequestId()).toBeUndefined();
  });

  it('redacts passwords and tokens', async () => {
    const { lines, stream } = capture();
    createLogger({ service: 's', destination: stream }).info({ body: { password: 'secret' }, token: 't' }, 'x');
    await new Promise((r) => setImmediate(r));
    expect(JSON.stringify(lines[0])).not.toContain('secret');
    expect(lines[0].token).toBe('[redacted]');
  });

  it('accepts only plain request ids', () => {
    expect(sanitizeRequestId('a-b_c.1')).toBe('a-b_c.1');
    expect(sanitizeRequestId('bad\nid')).toBeUndefined();
    expect(sanitizeRequestId('x'.repeat(200))).toBeUndefined();
    expect(sanitizeRequestId(3)).toBeUndefined();
  });
});
