import type { ScoreSettings } from '../board/score-submission.js';
import type { Store } from '../store/connect.js';
import type { LeaderboardCache } from './leaderboard-cache.js';
import type { WindowLimiter } from './rate-limit.js';

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
  /** Allow anyone to sign up (otherwise only an admin creates accounts with the CLI). */
  openSignup: boolean;
}

/** What route modules share. */
export interface BoardContext {
  store: Store;
  options: BoardOptions;
  boards: LeaderboardCache;
  loginLimiter: WindowLimiter;
  uploadLimiter: WindowLimiter;
}
