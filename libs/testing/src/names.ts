import { randomBytes } from 'node:crypto';

/**
 * `<prefix>_<12 hex chars>`, lower-case and limited to [a-z0-9_], so the result is valid as a
 * PostgreSQL identifier (≤ 63 bytes), a database name and a JetStream stream or consumer name.
 */
export function uniqueName(prefix: string): string {
  const clean = prefix.toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
  const head = /^[a-z_]/.test(clean) ? clean : `t_${clean}`;
  return `${head.slice(0, 48)}_${randomBytes(6).toString('hex')}`;
}
