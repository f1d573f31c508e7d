/**
 * The configuration every hosted repository carries, written into its own config at creation (and fork), so
 * that any git process on it — receive-pack, upload-pack, maintenance — behaves the same.
 */
import { runGit } from './command';

const HOSTING_CONFIG: readonly (readonly [key: string, value: string])[] = [
  // A bare repository keeps no reflog by default; the reflog is what recovers a lost branch.
  ['core.logAllRefUpdates', 'true'],
  // Force pushes and deletions are decided by the branch protection rules in the pre-receive check, not globally
  // (explicit, so a repository copied in with other settings behaves the same).
  ['receive.denyNonFastForwards', 'false'],
  ['receive.denyDeletes', 'false'],
  // Partial clones (`--filter=blob:none`) and fetching a commit by id, as git hosting offers them.
  ['uploadpack.allowFilter', 'true'],
  ['uploadpack.allowAnySHA1InWant', 'true'],
];

export async function applyHostingConfig(gitDir: string): Promise<void> {
  for (const [key, value] of HOSTING_CONFIG) await runGit(['config', '--local', key, value], { gitDir });
}
