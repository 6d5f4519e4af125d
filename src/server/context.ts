import type { ScoreSettings } from '../board/score-submission.js';
import type { ScoringDispatch, UploadIntake } from '../board/submit.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Store } from '../store/connect.js';
import type { LeaderboardCache } from './leaderboard-cache.js';
import type { ResponseMemo } from './response-memo.js';
import type { WindowLimiter } from './rate-limit.js';
import type { PixelCache } from './viewer/pixel-cache.js';

/** Settings of a board server; every limit is enforced here, on the server. */
export interface BoardOptions {
  /** Largest accepted upload, in bytes. */
  maxUploadBytes: number;
  /** Failed logins allowed per address and per account in `loginWindowMs`. */
  loginAttempts: number;
  loginWindowMs: number;
  /** Uploads allowed per address in `uploadWindowMs` (before validation; the daily team limit is separate). */
  uploadsPerWindow: number;
  uploadWindowMs: number;
  /** Mark session cookies Secure (serve behind HTTPS). */
  secureCookies: boolean;
  score: ScoreSettings;
  /** The board's address as people reach it (e.g. https://board.example.org behind a TLS proxy), for links it hands out; null: from the request. */
  publicUrl: string | null;
  /** Allow anyone to sign up (otherwise only an admin creates accounts with the CLI). */
  openSignup: boolean;
  /** Request log: one JSON line per request (pino), with request ids; never bodies, tokens or cookies. */
  log: { level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'silent'; stream?: NodeJS.WritableStream };
}

/** What route modules share. */
export interface BoardContext {
  store: Store;
  queue: JobQueue;
  /** Sends a stored submission to be scored (never scored in a request). */
  dispatch: ScoringDispatch;
  /** Checks and stores an upload (in a thread of its own: never on the event loop). */
  intake: UploadIntake;
  options: BoardOptions;
  boards: LeaderboardCache;
  /** Whole public responses (leaderboard page and API) kept until the database changes. */
  pages: ResponseMemo;
  loginLimiter: WindowLimiter;
  uploadLimiter: WindowLimiter;
  /** Decoded study and review images (the viewer's raw pixels), decoded once per process. */
  pixels: PixelCache;
}
