/** Opens the object store a configuration names (`[attachment]` / `[storage]`, read by @cairn/config). */
import type { ObjectStoreSettings } from '@cairn/config';
import { localObjectStore } from './local';
import type { ObjectStore } from './types';

export function openObjectStore(settings: ObjectStoreSettings): ObjectStore {
  switch (settings.type) {
    case 'local':
      return localObjectStore(settings.path);
    default:
      throw new Error(`object store type ${settings.type} is not supported yet`);
  }
}
