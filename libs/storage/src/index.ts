export { type ObjectStore, type OpenedObject, type PutOptions, type StoredObject, ObjectNotFoundError, ObjectTooLargeError } from './types';
export { localObjectStore } from './local';
export { openObjectStore } from './open';
