/**
 * @cairn/db: PostgreSQL for Cairn services through slonik. Services import everything database-related
 * from here (the pool, the `sql` tag, row schemas' `z`, error mapping), never slonik or pg directly.
 */
export { openDatabase, type Database, type OpenDatabaseOptions } from './pool';
export { runMigrations, readMigrationFiles, MigrationError, MIGRATION_FILE_PATTERN, type MigrationFile } from './migrations';
export { toCairnError } from './errors';
export { SCHEMA_NAME_PATTERN, assertSchemaName } from './schema';

export { z } from 'zod';
export {
  sql,
  CheckIntegrityConstraintViolationError,
  DataIntegrityError,
  ForeignKeyIntegrityConstraintViolationError,
  NotFoundError,
  NotNullIntegrityConstraintViolationError,
  SchemaValidationError,
  SlonikError,
  UniqueIntegrityConstraintViolationError,
} from 'slonik';
export type {
  CommonQueryMethods,
  DatabaseConnection,
  DatabasePool,
  DatabasePoolConnection,
  DatabaseTransactionConnection,
  FragmentSqlToken,
  IdentifierSqlToken,
  Interceptor,
  PrimitiveValueExpression,
  QueryResult,
  QueryResultRow,
  QuerySqlToken,
  SerializableValue,
  SqlToken,
  ValueExpression,
} from 'slonik';
export { provisionServiceRoles, serviceRoleName, serviceRoleStatements, type ServiceRole } from './roles';
