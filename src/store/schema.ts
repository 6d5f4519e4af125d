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

/** A secret waiting to be shown once on the page a form redirects to (store/session-flash.ts); one per session. */
export interface SessionFlashTable {
  /** The session's `id_hash`; the flash goes with the session. */
  session_hash: string;
  /** AES-256-GCM under a key derived from the session's cookie, which the database never holds: never the plaintext. */
  sealed: string;
  expires_at: string;
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
  /** `vqa` (hidden answer letters) or `rrg` (hidden reference reports). */
  kind: 'vqa' | 'rrg';
  /** For report generation: `findings` or `findings-impression`. */
  track: string | null;
}

/** One hidden reference report of a report-generation benchmark (the text of its track). Never leaves the server. */
export interface RrgReferenceTable {
  benchmark_id: string;
  position: number;
  study_id: string;
  reference: string;
  /** What participants may download: the study's inputs (image paths, views, context), never the report. */
  public_json: string;
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

/** An image stored once by its content (sha256), shown in reader studies and reviews: replicas share the database, not a disk. */
export interface StoredImageTable {
  sha256: string;
  content_type: string;
  byte_size: number;
  /** The file, base64 (text: one portable column type for SQLite and PostgreSQL). */
  content_base64: string;
  created_at: string;
}

/** An image of a benchmark's question, by the path its records give (present only when loaded with images). */
export interface BenchmarkImageTable {
  benchmark_id: string;
  path: string;
  sha256: string;
}

/** `draft` (host prepares; readers cannot open it) → `open` (reading) → `closed` (results and gold shown). */
export type StudyState = 'draft' | 'open' | 'closed';

/** A reader study: a sample of questions read by people, compared with each other and with models. */
export interface StudyTable {
  id: string;
  title: string;
  /** The board benchmark it was sampled from, when it was (its leaderboard entries become the compared models). */
  benchmark_id: string | null;
  /** Where the questions came from (dataset folder and split, or benchmark slug) and its sha256, for the record. */
  source: string;
  source_sha256: string;
  /** How the sample was drawn (JSON: mode random|stratified, n, task, seed, pool size). */
  sampling_json: string;
  seed: number;
  state: StudyState;
  /** 1: a reader may change answers after submitting (until the study closes). */
  allow_edits: number;
  /** Invite links stop working after this instant (ISO), or never when null. */
  invites_expire_at: string | null;
  /**
   * 1: readers were told, before they started, that their scores may be published on the public leaderboard
   * (chosen when the study is created; 0 for studies made before the choice existed).
   */
  publish_scores: number;
  /** When the host, closing the study, published the scores of its complete readers (null: not published). */
  published_at: string | null;
  created_by: string;
  created_at: string;
  opened_at: string | null;
  closed_at: string | null;
}

/** One case of a study. The gold and explanation stay on the server until the study closes. */
export interface StudyItemTable {
  study_id: string;
  position: number;
  question_id: string;
  /** The imaging study (patient visit) the question is about. */
  study_ref: string;
  task: string;
  category: string;
  question: string;
  options_json: string;
  gold: string;
  explanation: string | null;
  /** The views (JSON [{path, view, sha256|null}]): sha256 null when the file was missing at creation. */
  images_json: string;
  missing_images: number;
}

/** A reader of a study: invited by link (token stored hashed) or a board account. */
export interface StudyReaderTable {
  id: string;
  study_id: string;
  /** How results name the reader ("Reader 1", a name the host gave). */
  name: string;
  user_id: string | null;
  /** sha256 of the invite token (shown once), null for account readers. */
  token_hash: string | null;
  /** The reader's CSRF token for the answer forms and the autosave API. */
  csrf: string;
  /** Seeds the reader's own case order. */
  order_seed: number;
  created_at: string;
  revoked_at: string | null;
  submitted_at: string | null;
  last_seen_at: string | null;
}

/** A reader's current answer to one case (last write wins; every write is also an event). */
export interface StudyAnswerTable {
  reader_id: string;
  study_id: string;
  position: number;
  answer: string;
  confidence: number | null;
  /** The page visit (tab) that wrote it last. */
  visit_id: string;
  first_at: string;
  updated_at: string;
}

/** Every save of an answer, append-only: which tab, when (client and server clocks), and how long the case was open. */
export interface StudyAnswerEventTable {
  id: string;
  reader_id: string;
  position: number;
  answer: string | null;
  confidence: number | null;
  visit_id: string;
  /** Time the case had been open in that visit when this was saved. */
  elapsed_ms: number;
  client_at: string | null;
  at: string;
}

/** A model's answers on a study's items, added from a run (entries of the study's benchmark are read live). */
export interface StudyModelTable {
  id: string;
  study_id: string;
  name: string;
  /** {question_id: letter | null} (JSON). */
  answers_json: string;
  created_at: string;
}

/** An expert-review queue: questions (with their reports) to rate, accept, edit or reject. */
export interface ReviewQueueTable {
  id: string;
  title: string;
  source: string;
  source_sha256: string;
  /** How many reviewers each item is assigned to (1 or 2). */
  reviewers_per_item: number;
  created_by: string;
  created_at: string;
}

/** One question under review: the full record (answer, explanation, report) as it was when queued. */
export interface ReviewItemTable {
  queue_id: string;
  position: number;
  question_id: string;
  split: string;
  record_json: string;
  report_text: string | null;
  images_json: string;
  missing_images: number;
}

export interface ReviewAssignmentTable {
  queue_id: string;
  position: number;
  user_id: string;
}

/** A reviewer's verdict on one item (one per reviewer and item; a later save replaces it). */
export interface ReviewDecisionTable {
  queue_id: string;
  position: number;
  user_id: string;
  /** 1: the host's adjudication of a disputed item, which settles it. */
  adjudication: number;
  /** The four 1–5 ratings and the difficulty: null only on a rejection that left them out (they judge a question that goes on). */
  clinical_quality: number | null;
  explanation_clarity: number | null;
  factual_correctness: number | null;
  image_alignment: number | null;
  difficulty: string | null;
  category: string;
  decision: 'accept' | 'edit' | 'reject';
  reason: string | null;
  note: string | null;
  /** The edited record (JSON), when decision = edit; the original stays in review_items. */
  edited_json: string | null;
  created_at: string;
  updated_at: string;
}

/** A version of the question bank made from a queue's decisions: which items were kept, edited or retired. */
export interface ReviewVersionTable {
  id: string;
  queue_id: string;
  number: number;
  created_by: string;
  created_at: string;
  /** How disputed items were settled (keep | retire). */
  disputed_policy: string;
  summary_json: string;
  /**
   * Every item (JSON, review/version.ts VersionItem): {position, questionId, split, status: accepted|edited|retired|
   * disputed|pending, adjudicated, included, record (the edited text for edits), previous (the queued text, for
   * edits), reasons}. The pending items' policy (keep|retire) is in summary_json.
   */
  items_json: string;
}

/**
 * When a reviewer first saw the other reviewers' decisions in a queue, and how (`report`: opened its report;
 * `version`: made a version; `download`: downloaded one). From then on their own decisions on items they share with
 * another reviewer are final.
 */
export interface ReviewOthersSeenTable {
  queue_id: string;
  user_id: string;
  first_seen_at: string;
  first_seen_via: 'report' | 'version' | 'download';
}

export interface Database {
  teams: TeamTable;
  users: UserTable;
  sessions: SessionTable;
  session_flashes: SessionFlashTable;
  api_tokens: ApiTokenTable;
  benchmarks: BenchmarkTable;
  benchmark_items: BenchmarkItemTable;
  submissions: SubmissionTable;
  submission_files: SubmissionFileTable;
  entries: EntryTable;
  audit_log: AuditTable;
  jobs: JobTable;
  rate_limits: RateLimitTable;
  stored_images: StoredImageTable;
  benchmark_images: BenchmarkImageTable;
  rrg_references: RrgReferenceTable;
  studies: StudyTable;
  study_items: StudyItemTable;
  study_readers: StudyReaderTable;
  study_answers: StudyAnswerTable;
  study_answer_events: StudyAnswerEventTable;
  study_models: StudyModelTable;
  review_queues: ReviewQueueTable;
  review_items: ReviewItemTable;
  review_assignments: ReviewAssignmentTable;
  review_decisions: ReviewDecisionTable;
  review_versions: ReviewVersionTable;
  review_others_seen: ReviewOthersSeenTable;
}
