import { spawn } from 'node:child_process';
import * as net from 'node:net';
import { assertPortFree, ephemeralPortRange, freeLoopbackPort, reserveLoopbackPort, isProcessAlive, isSameProcessAlive, parseProcStat, processIdentity, waitForProcessExit } from './processes';

describe('parseProcStat', () => {
  it('reads state and start time even when the command name has spaces and parentheses', () => {
    const fields = Array.from({ length: 50 }, (_, index) => String(index + 3));
    fields[0] = 'S';
    fields[19] = '60578';
    expect(parseProcStat(`1234 (my (odd) name) ${fields.join(' ')}`)).toEqual({ state: 'S', startTicks: '60578' });
  });

  it('rejects text that is not a stat line', () => {
    expect(parseProcStat('garbage')).toBeUndefined();
  });
});

describe('process liveness', () => {
  it('knows this process is alive and that a recorded identity with another start time is not', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    const me = processIdentity();
    expect(isSameProcessAlive(me)).toBe(true);
    if (me.startTicks !== undefined) expect(isSameProcessAlive({ pid: me.pid, startTicks: `${me.startTicks}1` })).toBe(false);
  });

  it('sees a process that exited as dead', async () => {
    const child = spawn(process.execPath, ['-e', '0']);
    const pid = child.pid as number;
    await new Promise((resolve) => child.once('exit', resolve));
    expect(await waitForProcessExit(pid, 5000)).toBe(true);
    expect(isProcessAlive(pid)).toBe(false);
  });

  it('rejects impossible pids', () => {
    expect(isProcessAlive(0)).toBe(false);
    expect(isProcessAlive(-5)).toBe(false);
  });
});

describe('freeLoopbackPort', () => {
  it('picks a bindable port below the ephemeral range, where outgoing connections never take it', async () => {
    const { low } = ephemeralPortRange();
    for (let i = 0; i < 20; i++) {
      const port = await freeLoopbackPort();
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(low);
      await expect(assertPortFree('127.0.0.1', port, 'port')).resolves.toBeUndefined();
    }
  });
});

describe('reserveLoopbackPort', () => {
  it('holds the port until released, so nobody else can bind it meanwhile; release is idempotent', async () => {
    const reservation = await reserveLoopbackPort();
    await expect(assertPortFree('127.0.0.1', reservation.port, 'held')).rejects.toThrow('is already in use');
    await Promise.all([reservation.release(), reservation.release()]);
    await expect(assertPortFree('127.0.0.1', reservation.port, 'released')).resolves.toBeUndefined();
  });

  it('never hands out a port it still holds', async () => {
    const reservations = await Promise.all(Array.from({ length: 50 }, () => reserveLoopbackPort()));
    try {
      expect(new Set(reservations.map((reservation) => reservation.port)).size).toBe(50);
    } finally {
      await Promise.all(reservations.map((reservation) => reservation.release()));
    }
  });
});

describe('assertPortFree', () => {
  it('names the address when the port is taken', async () => {
    const port = await freeLoopbackPort();
    await expect(assertPortFree('127.0.0.1', port, 'HTTP')).resolves.toBeUndefined();
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      await expect(assertPortFree('127.0.0.1', port, 'HTTP')).rejects.toThrow(`HTTP 127.0.0.1:${port} is already in use`);
    } finally {
      server.close();
    }
  });
});
