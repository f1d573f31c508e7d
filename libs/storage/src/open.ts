/** Opens the object store a configuration names (`[attachment]` / `[storage]`, read by @cairn/config). */
import type { ObjectStoreSettings } from '@cairn/config';
import { localObjectStore } from './local';
import { s3ObjectStore } from './s3';
import type { ObjectStore } from './types';

export function openObjectStore(settings: ObjectStoreSettings): ObjectStore {
  switch (settings.type) {
    case 'local':
      return localObjectStore(settings.path);
    case 'minio':
      return s3ObjectStore(settings);
  }
}
