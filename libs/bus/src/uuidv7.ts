import { randomFillSync } from 'node:crypto';

/**
 * UUIDv7 (RFC 9562 §5.7): 48-bit Unix milliseconds, version 7, 12-bit `rand_a` used as a counter
 * (RFC 9562 §6.2 method 1) so ids made in one process sort in creation order even within a
 * millisecond, variant 0b10, 62 random bits.
 */
let lastMs = -1;
let counter = 0;
const bytes = Buffer.alloc(16);

export function uuidv7(): string {
  let ms = Date.now();
  if (ms > lastMs) {
    // A fresh millisecond: seed the counter randomly below 2^11, leaving room to count up.
    randomFillSync(bytes, 0, 2);
    counter = bytes.readUInt16BE(0) & 0x7ff;
    lastMs = ms;
  } else {
    // Same millisecond (or the clock went back): count up; on overflow borrow the next millisecond.
    counter += 1;
    if (counter > 0xfff) {
      lastMs += 1;
      counter = 0;
    }
    ms = lastMs;
  }
  randomFillSync(bytes, 8, 8);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for any RFC 9562 textual UUID (event ids given by callers must be UUIDs: they land in uuid columns). */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
