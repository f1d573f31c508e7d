/**
 * `cairn keys generate [--dir D] [--identity NAME]`: writes the service identity keys an operator distributes
 * (docs/security.md): a key pair for each identity that has none in the directory yet, never replacing one.
 * The default directory is the work dir's (`[rpc] KEYS_DIR`), which the supervisor fills by itself at start.
 */
import path from 'node:path';
import type { CairnConfig } from '@cairn/config';
import { IDENTITIES, type Identity, ensureKeys, isIdentity } from '@cairn/rpc';
import { UsageError, type CommandSpec, type FlagValues } from '../args';

export const keysGenerateCommand: CommandSpec = {
  path: ['keys', 'generate'],
  summary: 'write missing service identity keys (Ed25519) to a directory',
  flags: [
    { name: 'dir', type: 'string', description: 'directory to write to (default: [rpc] KEYS_DIR, <work dir>/rpc-keys)' },
    { name: 'identity', type: 'string', description: `only this identity (${IDENTITIES.join(', ')}); default all` },
  ],
};

export function runKeysGenerate(config: CairnConfig, values: FlagValues, cwd: string): string {
  const dir = typeof values.dir === 'string' ? path.resolve(cwd, values.dir) : config.rpc.keysDir;
  const wanted = typeof values.identity === 'string' ? values.identity : undefined;
  if (wanted !== undefined && !isIdentity(wanted)) {
    throw new UsageError(`unknown identity "${wanted}": expected one of ${IDENTITIES.join(', ')}`, keysGenerateCommand);
  }
  const identities: readonly Identity[] = wanted === undefined ? IDENTITIES : [wanted];
  const created = ensureKeys(dir, identities);
  return created.length === 0 ? `keys already present in ${dir}` : `keys created in ${dir}: ${created.join(', ')}`;
}
