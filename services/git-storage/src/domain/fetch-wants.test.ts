import { FLUSH_PKT, pktLine } from '../git/pkt-line';
import { FetchWantScanner } from './fetch-wants';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const DELIM = Buffer.from('0001');

function request(): Buffer {
  return Buffer.concat([
    pktLine('command=fetch\n'),
    pktLine('agent=git/2.39.5\n'),
    pktLine('object-format=sha1\n'),
    DELIM,
    pktLine('thin-pack\n'),
    pktLine(`want ${A}\n`),
    pktLine(`want ${B}\n`),
    pktLine(`have ${'c'.repeat(40)}\n`),
    pktLine('done\n'),
    FLUSH_PKT,
  ]);
}

describe('FetchWantScanner', () => {
  it('collects the wants of a v2 fetch request, however the body is cut into chunks', () => {
    const body = request();
    for (const size of [1, 3, 7, body.length]) {
      const scanner = new FetchWantScanner();
      for (let at = 0; at < body.length; at += size) {
        scanner.push(body.subarray(at, at + size));
        if (at + size < body.length) expect(scanner.complete).toBe(false);
      }
      expect(scanner.complete).toBe(true);
      expect(scanner.wants).toEqual([A, B]);
    }
  });

  it('takes no want from the capability lines and stops at a malformed length', () => {
    const scanner = new FetchWantScanner();
    scanner.push(Buffer.concat([pktLine('command=fetch\n'), pktLine(`want ${A}\n`), Buffer.from('zzzz'), DELIM, pktLine(`want ${B}\n`)]));
    expect(scanner.complete).toBe(true);
    expect(scanner.wants).toEqual([]);
  });

  it('sees nothing to check in an ls-refs request', () => {
    const scanner = new FetchWantScanner();
    scanner.push(Buffer.concat([pktLine('command=ls-refs\n'), DELIM, pktLine('peel\n'), pktLine('ref-prefix refs/heads/\n'), FLUSH_PKT]));
    expect(scanner.complete).toBe(true);
    expect(scanner.wants).toEqual([]);
  });
});
