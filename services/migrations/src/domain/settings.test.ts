import { CairnError } from '@cairn/rpc';
import { MIGRATIONS_DISABLED, MIRRORS_DISABLED, assertImportAllowed } from './settings';

const config = (mirror: { enabled?: boolean; disableNewPull?: boolean }, disableMigrations = false) => ({
  mirror: { enabled: true, disableNewPull: false, disableNewPush: false, minInterval: 600_000, defaultInterval: 28_800_000, ...mirror },
  repository: { disableMigrations } as Parameters<typeof assertImportAllowed>[0]['repository'],
});

function outcome(run: () => void): string {
  try {
    run();
    return 'allowed';
  } catch (error) {
    return error instanceof CairnError ? `${error.code} ${error.reason} ${error.message}` : 'other';
  }
}

describe('assertImportAllowed', () => {
  it('refuses new pull mirrors when mirrors are off or new pull mirrors disabled, before DISABLE_MIGRATIONS (Gitea order)', () => {
    expect(outcome(() => assertImportAllowed(config({ enabled: false }, true), true))).toBe(`7 mirrors_disabled ${MIRRORS_DISABLED}`);
    expect(outcome(() => assertImportAllowed(config({ disableNewPull: true }), true))).toBe(`7 mirrors_disabled ${MIRRORS_DISABLED}`);
    expect(outcome(() => assertImportAllowed(config({ disableNewPull: true }), false))).toBe('allowed');
  });

  it('refuses every import under DISABLE_MIGRATIONS', () => {
    expect(outcome(() => assertImportAllowed(config({}, true), false))).toBe(`7 migrations_disabled ${MIGRATIONS_DISABLED}`);
    expect(outcome(() => assertImportAllowed(config({}), true))).toBe('allowed');
  });
});
