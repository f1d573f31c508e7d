import { createHash } from 'node:crypto';

/**
 * A UUID that depends only on `name` (RFC 9562 §5.8, version 8, built as its Appendix B.2 example: the first 128 bits
 * of SHA-256, with the version and variant bits set). For an event a producer may write more than once (found again
 * after a crash), so that the outbox and JetStream's deduplication keep one copy. `name` should say what it names
 * (`cairn.git.pushed:<repo>:…`) so ids of different kinds of things cannot meet.
 */
export function uuidFromName(name: string): string {
  const bytes = createHash('sha256').update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = 0x80 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
