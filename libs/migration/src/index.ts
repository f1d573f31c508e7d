/**
 * @cairn/migration: what migrations move between forges (Gitea's modules/migration), the sources (downloaders) and the
 * driver that moves items from a downloader to an uploader in Gitea's order (services/migrations/migrate.go).
 */
export * from './base';
export { MIGRATION_STEPS, type MigrateItemsOptions, type MigrationProgress, type MigrationStep, migrateItems } from './driver';
export { type GiteaDownloaderOptions, createGiteaDownloader, parseCloneAddr } from './gitea-downloader';
export { createGithubDownloader, parseGithubCloneAddr } from './github-downloader';
export { ITEM_SERVICES, type DownloaderOptions, createDownloader, hasItems } from './downloaders';
export { MigrationSourceError, type SourceClient, type SourceClientOptions, createSourceClient, readLimited } from './source-http';
export { DumpUploader, type DumpUploaderOptions } from './dump';
export { AssetPaths, safePathPart, safeTagPath } from './dump-assets';
export { DUMP_PATHS, type DumpRepoInfo, GIT_SERVICE_TYPES, type GitServiceName, dumpYaml, goTime } from './dump-format';
export { awardsToReactions, createGitlabDownloader, normalizeColor, parseGitlabAddr } from './gitlab-downloader';
export { DumpDownloader, type DumpDownloaderOptions, DumpFormatError } from './dump-reader';
export { TarError, type TarLimits, TarReader, extractTar, readTar, tarDirectory } from './tar';
