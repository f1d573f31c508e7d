export { type ObjectStore, type OpenedObject, type PutOptions, type StoredObject, ObjectNotFoundError, ObjectTooLargeError, attachmentKey } from './types';
export { localObjectStore } from './local';
export { s3ObjectStore } from './s3';
export { openObjectStore } from './open';
