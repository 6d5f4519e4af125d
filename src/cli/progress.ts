import cliProgress from 'cli-progress';
import type { RunProgress } from '../runner/run.js';

function eta(p: RunProgress): string {
  const rate = p.doneNow / Math.max(p.elapsedMs / 1000, 1e-3);
  const left = p.total - p.done;
  if (rate <= 0 || left <= 0) return '—';
  const s = Math.round(left / rate);
  return s >= 3600 ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m` : s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

function line(p: RunProgress): string {
  const rate = p.doneNow / Math.max(p.elapsedMs / 1000, 1e-3);
  return `${p.done}/${p.total} · ${rate.toFixed(1)}/s · ETA ${eta(p)} · errors ${p.errors} · unparseable ${p.unparseable} · in flight ${p.inFlight}/${p.concurrency}`;
}

/**
 * Progress on stderr: a live bar on a terminal, a plain line every 10 s otherwise (logs, CI), nothing with
 * --quiet. Returns the callback for the runner and a function that ends the display.
 */
export function progressReporter(quiet: boolean): { onProgress: (p: RunProgress) => void; stop: () => void } {
  if (quiet) return { onProgress: () => {}, stop: () => {} };
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar({ format: '{bar} {status}', stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic);
    let started = false;
    return {
      onProgress(p) {
        if (!started) {
          bar.start(Math.max(p.total, 1), p.done, { status: line(p) });
          started = true;
        } else bar.update(p.done, { status: line(p) });
        bar.setTotal(Math.max(p.total, 1));
      },
      stop: () => started && bar.stop(),
    };
  }
  let last = 0;
  return {
    onProgress(p) {
      if (Date.now() - last < 10_000 && p.done < p.total) return;
      last = Date.now();
      process.stderr.write(`${line(p)}\n`);
    },
    stop: () => {},
  };
}
