/**
 * The leaderboard's tables, one Kysely schema for SQLite and PostgreSQL. Portable column types only: text ids
 * (random), integers, doubles, ISO-8601 text timestamps, 0/1 integers for booleans.
 */
export interface TeamTable {
  id: string;
  name: string;
  created_at: string;
  /** sha256 of the current invite code, or null when none was made. */
  invite_hash: string | null;
}

export interface UserTable {
  id: string;
  email: string;
  display_name: string;
  /** scrypt, with its parameters and salt: `scrypt$N$r$p$salt$hash`. */
  password_hash: string;
  is_admin: number;
  team_id: string | null;
  created_at: string;
}

export interface SessionTable {
  /** sha256 of the cookie's value: a leaked table does not give sessions away. */
  id_hash: string;
  user_id: string;
  /** The session's CSRF token, echoed by every form. */
  csrf: string;
  expires_at: string;
  created_at: string;
}

export interface ApiTokenTable {
  id: string;
  user_id: string;
  name: string;
  /** sha256 of the token, which is shown once and never stored. */
  token_hash: string;
  /** The first characters, so a user can tell tokens apart. */
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface BenchmarkTable {
  id: string;
  slug: string;
  title: string;
  version: string;
  /** sha256 of the loaded file, so a result always names the exact test set. */
  content_sha256: string;
  item_count: number;
  is_open: number;
  daily_limit: number;
  total_limit: number;
  created_at: string;
}

/** One hidden test item. Only what scoring needs: the gold letter never leaves the server, the explanation is not even stored. */
export interface BenchmarkItemTable {
  benchmark_id: string;
  position: number;
  question_id: string;
  study_id: string;
  task: string;
  category: string;
  subcategory: string;
  gold: string;
  /** The four option texts (JSON), for extraction by option text. */
  options_json: string;
  /** What participants may download: the record without answer and explanation (JSON). */
  public_json: string;
}

/** `queued` (stored, waiting for a worker) → `scoring` → `scored` (entry published) or `failed` (retryable). */
export type SubmissionState = 'queued' | 'scoring' | 'scored' | 'failed';
export type SubmissionKind = 'participant' | 'baseline' | 'reported';

/**
 * An uploaded file, kept so a failed scoring can be retried. Its own table: SQLite stores a row's columns in
 * order, so a multi-megabyte file inside `submissions` made every read of a later column (and every update of
 * the row) walk or rewrite megabytes of overflow pages.
 */
export interface SubmissionFileTable {
  submission_id: string;
  content: string;
}

export interface SubmissionTable {
  id: string;
  benchmark_id: string;
  team_id: string | null;
  user_id: string | null;
  kind: SubmissionKind;
  state: SubmissionState;
  /** UTC day of the upload, for the per-day limit. */
  day: string;
  file_name: string;
  format: string;
  byte_size: number;
  /** Model metadata (JSON, see board/model-card.ts). */
  model_json: string;
  /** sha256 of the uploaded file (its text), to recognise the same file sent again. */
  content_sha256: string | null;
  error: string | null;
  created_at: string;
  scored_at: string | null;
  /** The scoring job that carries it (the queue's id), once sent. */
  job_id: string | null;
  /** Scoring attempts started. */
  attempts: number;
  /** The worker scoring it now (host, process, thread), for the status page and for debugging. */
  worker: string | null;
  updated_at: string | null;
}

/** A scored submission: what the leaderboard shows. Exists only when scoring finished (inserted in one transaction). */
export interface EntryTable {
  submission_id: string;
  benchmark_id: string;
  /** Aggregate metrics (JSON, board/entry-metrics.ts): never per-item results. */
  metrics_json: string;
  rexrank_overall: number;
  micro_accuracy: number;
  n: number;
  unparseable: number;
  /** One character per item position (c/w/u/e), for paired rank tiers. Server-side only, never sent. */
  item_results: string;
  created_at: string;
}

/** A job of the single-machine queue (SQLite). On PostgreSQL, pg-boss keeps jobs in its own schema. */
export interface JobTable {
  id: string;
  queue: string;
  /** At most one waiting job per key (the submission id). */
  job_key: string;
  data_json: string;
  state: 'created' | 'active' | 'completed' | 'failed';
  attempts: number;
  retry_limit: number;
  retry_delay_ms: number;
  /** How long a worker may hold the job without renewing its lease: the visibility timeout. */
  expire_ms: number;
  run_after: string;
  lease_until: string | null;
  worker: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** Events counted per key in fixed windows (failed logins per address and account, uploads per address). */
export interface RateLimitTable {
  key: string;
  window_start: string;
  count: number;
}

export interface AuditTable {
  id: string;
  at: string;
  actor: string;
  action: string;
  detail_json: string;
}

export interface Database {
  teams: TeamTable;
  users: UserTable;
  sessions: SessionTable;
  api_tokens: ApiTokenTable;
  benchmarks: BenchmarkTable;
  benchmark_items: BenchmarkItemTable;
  submissions: SubmissionTable;
  submission_files: SubmissionFileTable;
  entries: EntryTable;
  audit_log: AuditTable;
  jobs: JobTable;
  rate_limits: RateLimitTable;
}
