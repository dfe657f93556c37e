/**
 * Every error code idx reports (`IdxError.code`, the `code` of a GraphQL error's extensions).
 * Stable: scripts and callers branch on them, so a code is renamed only with a changelog entry.
 */
export type ErrorCode =
  // command line and configuration
  | 'BAD_ARGUMENT'
  | 'OPTION_NOT_AVAILABLE'
  | 'CONFIG_NOT_FOUND'
  | 'CONFIG_UNSUPPORTED_FORMAT'
  | 'LOG_FILE_UNWRITABLE'
  | 'LISTEN_FAILED'
  | 'PORT_UNAVAILABLE'
  | 'IDX_INSTALL_INCOMPLETE'
  | 'IDX_NODE_START_FAILED'
  | 'ADMIN_SECRET_INVALID'
  | 'ADMIN_SECRET_UNREADABLE'
  // projects: manifest, schema, build, init
  | 'PROJECT_NOT_FOUND'
  | 'PROJECT_NOT_GIVEN'
  | 'PROJECT_INCOMPLETE'
  | 'PROJECT_NOT_INDEXED'
  | 'MANIFEST_NOT_FOUND'
  | 'MANIFEST_UNSUPPORTED_FORMAT'
  | 'MANIFEST_COMPILE_FAILED'
  | 'MANIFEST_EVALUATION_FAILED'
  | 'MANIFEST_IMPORT_NOT_FOUND'
  | 'MANIFEST_NO_DEFAULT_EXPORT'
  | 'VALIDATION_FAILED'
  | 'NETWORK_MISSING'
  | 'HISTORICAL_REQUIRED'
  | 'CHAIN_TYPES_INVALID'
  | 'CHAIN_FAMILY_MIXED'
  | 'CHAIN_FAMILY_UNSUPPORTED'
  | 'ASSET_NOT_FOUND'
  | 'ABI_NOT_FOUND'
  | 'MAPPING_NOT_BUILT'
  | 'ABI_INVALID'
  | 'ABI_NAME_CLASH'
  | 'ABI_UNSUPPORTED_TYPE'
  | 'TEMPLATE_NOT_FOUND'
  | 'MAPPING_FILES_DIFFER'
  | 'MULTICHAIN_CHAIN_REPEATED'
  | 'MULTICHAIN_FLAG_UNSUPPORTED'
  | 'MULTICHAIN_NESTED'
  | 'MULTICHAIN_REINDEX_ONE_CHAIN'
  | 'MULTI_CHAIN_FLAG_NEEDED'
  | 'MULTI_CHAIN_NEEDS_POSTGRES'
  | 'MULTICHAIN_MANIFEST'
  | 'MULTICHAIN_SCHEMAS_DIFFER'
  | 'BUILD_BAD_MODE'
  | 'BUILD_ENTRY_NOT_FOUND'
  | 'BUILD_FAILED'
  | 'BUILD_IMPORT_NOT_FOUND'
  | 'BUILD_SYNTAX_ERROR'
  | 'UNRESOLVED_IMPORT'
  | 'CIRCULAR_DEPENDENCY'
  | 'PACKAGE_JSON_INVALID'
  | 'PACKAGE_NOT_FOUND'
  | 'TSCONFIG_INVALID'
  | 'INIT_BAD_NAME'
  | 'INIT_BAD_NETWORK'
  | 'INIT_TARGET_EXISTS'
  | 'INIT_TEMPLATE_MISSING'
  // chain access
  | 'RPC_ERROR'
  | 'RPC_BAD_ENDPOINT'
  | 'RPC_BAD_RESPONSE'
  | 'RPC_NO_ENDPOINTS'
  | 'RPC_UNREACHABLE'
  | 'RPC_LOG_RANGE_REFUSED'
  | 'RPC_ANSWER_CONTRADICTS_HEADER'
  | 'INVALID_QUANTITY'
  | 'CHAIN_UNREACHABLE'
  | 'CHAIN_ID_MISMATCH'
  | 'CHAIN_GENESIS_MISMATCH'
  | 'CHAIN_HISTORY_MISMATCH'
  | 'CHAIN_NO_GENESIS'
  | 'CHAIN_BLOCK_NOT_FOUND'
  | 'CHAIN_RECEIPT_NOT_FOUND'
  | 'CHAIN_CHANGED_DURING_FETCH'
  | 'UNFINALIZED_BLOCKS_INCONSISTENT'
  | 'FORK_BEYOND_UNFINALIZED'
  | 'BLOCK_NOT_IN_RANGE'
  | 'FETCH_WORKER_FAILED'
  | 'DICTIONARY_FAILED'
  // mappings and the sandbox
  | 'HANDLER_FAILED'
  | 'HANDLER_NOT_FOUND'
  | 'INVALID_HANDLER_CALL'
  | 'MODULE_NOT_FOUND'
  | 'MODULE_NOT_ALLOWED'
  | 'SANDBOX_BUSY'
  | 'SANDBOX_CRASHED'
  | 'SANDBOX_DISPOSED'
  | 'SANDBOX_LOAD_FAILED'
  | 'SANDBOX_PRELUDE_FAILED'
  | 'SANDBOX_TIMEOUT'
  | 'SANDBOX_MEMORY_LIMIT'
  | 'INVALID_SIGNATURE'
  // idx-node test (SubQuery's subqlTest)
  | 'TEST_HANDLER_NOT_FOUND'
  | 'TEST_FILE_INVALID'
  | 'TEST_RECORDING_INVALID'
  | 'TEST_RECORDING_MISMATCH'
  | 'TEST_NOT_RECORDED'
  | 'TEST_SNAPSHOT_INVALID'
  // the store and the database
  | 'STORE_INTERNAL'
  | 'STORE_INVALID_ID'
  | 'STORE_INVALID_OPERATION'
  | 'STORE_INVALID_QUERY'
  | 'STORE_INVALID_VALUE'
  | 'STORE_NOT_FOUND'
  | 'STORE_UNKNOWN_ENTITY'
  | 'STORE_UNKNOWN_FIELD'
  | 'STORE_WRITE_FAILED'
  | 'DB_AUTH_FAILED'
  | 'DB_CONFIG_INVALID'
  | 'DB_CONNECT_FAILED'
  | 'DB_EXTENSION_MISSING'
  | 'DB_LOCKED'
  | 'DB_LOCK_LOST'
  | 'DB_SSL_FILE'
  | 'DB_VERSION_UNSUPPORTED'
  | 'DISK_FULL'
  | 'MIGRATIONS_NOT_FOUND'
  | 'MIGRATION_FAILED'
  | 'SCHEMA_MIGRATION_FAILED'
  | 'SCHEMA_MIGRATION_REFUSED'
  | 'SCHEMA_LAYOUT_OLD'
  | 'SCHEMA_NOT_FOUND'
  | 'DEPLOYMENT_LIVE'
  | 'DEPLOYMENT_NOT_FOUND'
  | 'DEPLOYMENT_FILE_INVALID'
  | 'SCHEMA_CHANGED'
  | 'REINDEX_NEEDED'
  | 'REUSE_REFUSED'
  | 'REWIND_NEEDS_HISTORY'
  | 'CSV_DIR_FAILED'
  | 'CSV_WRITE_FAILED'
  | 'EMBEDDED_NODE_NOT_RUNNING'
  | 'EMBEDDED_SOCKET_UNSAFE'
  // idx-query
  | 'BAD_REQUEST'
  | 'BAD_USER_INPUT'
  | 'GRAPHQL_PARSE_FAILED'
  | 'GRAPHQL_VALIDATION_FAILED'
  | 'GRAPHQL_EXECUTION_ERROR'
  | 'INTERNAL_SERVER_ERROR'
  | 'DATABASE_ERROR'
  | 'QUERY_LIMIT_EXCEEDED'
  | 'QUERY_TIMEOUT'
  | 'QUERY_TOO_COMPLEX'
  | 'QUERY_TOO_DEEP'
  | 'QUERY_TOO_LARGE'
  | 'DEPLOYMENT_SWITCHED'
  | 'RESPONSE_TOO_LARGE'
  | 'UNSAFE_AGGREGATE_DISABLED'
  | 'PLAYGROUND_FILES_MISSING'
  // idx-shard
  | 'UPSTREAM_BAD_RESPONSE'
  | 'UPSTREAM_INCONSISTENT'
  | 'UPSTREAM_NO_GENESIS'
  | 'UPSTREAM_UNREACHABLE'
  | 'SHARD_RANGE_REFUSED'
  // development chains (idx dev-chain, tests, demo, benchmarks)
  | 'ANVIL_NOT_INSTALLED'
  | 'ANVIL_START_FAILED'
  | 'CHOPSTICKS_NOT_INSTALLED'
  | 'CHOPSTICKS_START_FAILED'
  | 'DEV_CHAIN_RUNNING'
  | 'DEV_CHAIN_START_FAILED'
  | 'CONTRACT_DEPLOY_FAILED'
  | 'WORKLOAD_FAILED';

/** The one base error: callers branch on `code`, users read `message`. */
export class IdxError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; retryable?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'IdxError';
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}

/** One problem in a user's input, located by a field path or a line/column. */
export interface Problem {
  /** e.g. `dataSources[0].mapping.handlers[1].kind`, or a file name */
  path: string;
  message: string;
  line?: number;
  column?: number;
}

export function formatProblem(p: Problem): string {
  const at = p.line === undefined ? '' : `:${p.line}${p.column === undefined ? '' : `:${p.column}`}`;
  return `${p.path}${at}: ${p.message}`;
}

/** A validation error's problems on one line, each with its line and column but not the file: for a message that names the file already. */
export function problemDetails(err: ValidationError): string {
  return err.problems.map((p) => (p.line === undefined ? p.message : `${p.line}${p.column === undefined ? '' : `:${p.column}`}: ${p.message}`)).join('; ');
}

/** Invalid user input with every problem found, not just the first. */
export class ValidationError extends IdxError {
  readonly problems: Problem[];

  constructor(what: string, problems: Problem[]) {
    super('VALIDATION_FAILED', `${what} is invalid:\n${problems.map((p) => `  - ${formatProblem(p)}`).join('\n')}`);
    this.name = 'ValidationError';
    this.problems = problems;
  }
}
