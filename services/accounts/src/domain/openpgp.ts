/**
 * The `openpgp` module, loaded once. Its types are ESM-only, so a CommonJS module may only reach it through a
 * real dynamic import (which tsc keeps in Node16 CommonJS output); its values are used through this.
 */
import type * as OpenPgp from 'openpgp' with { 'resolution-mode': 'import' };

export type OpenPgpModule = typeof OpenPgp;

let loaded: Promise<OpenPgpModule> | undefined;

export function loadOpenPgp(): Promise<OpenPgpModule> {
  loaded ??= import('openpgp');
  return loaded;
}
