/**
 * @cairn/migration: what migrations move between forges (Gitea's modules/migration), the sources (downloaders) and the
 * driver that moves items from a downloader to an uploader in Gitea's order (services/migrations/migrate.go).
 */
export * from './base';
export { MIGRATION_STEPS, type MigrateItemsOptions, type MigrationProgress, type MigrationStep, migrateItems } from './driver';
export { type GiteaDownloaderOptions, createGiteaDownloader, parseCloneAddr } from './gitea-downloader';
export { ITEM_SERVICES, type DownloaderOptions, createDownloader, hasItems } from './downloaders';
export { MigrationSourceError, type SourceClient, type SourceClientOptions, createSourceClient, readLimited } from './source-http';
export { DumpUploader, type DumpUploaderOptions } from './dump';
export { DUMP_PATHS, type DumpRepoInfo, GIT_SERVICE_TYPES, type GitServiceName, dumpYaml, goTime } from './dump-format';
