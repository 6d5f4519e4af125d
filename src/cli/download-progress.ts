import cliProgress from 'cli-progress';
import type { DownloadEvent } from '../hub/download.js';
import { formatBytes } from '../hub/free-space.js';

function duration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '—';
  const r = Math.round(s);
  return r >= 3600 ? `${Math.floor(r / 3600)}h${String(Math.floor((r % 3600) / 60)).padStart(2, '0')}m` : r >= 60 ? `${Math.floor(r / 60)}m${String(r % 60).padStart(2, '0')}s` : `${r}s`;
}

/** Bytes, rate and time left of one counter, measured from when it started. */
class Meter {
  private readonly started = Date.now();
  private fetchedNow = 0;
  constructor(public done: number, public total: number) {}
  add(delta: number): void {
    this.done += delta;
    this.fetchedNow += delta;
  }
  line(): string {
    const rate = this.fetchedNow / Math.max((Date.now() - this.started) / 1000, 1e-3);
    const eta = rate > 0 ? (this.total - this.done) / rate : Infinity;
    return `${formatBytes(this.done)}/${formatBytes(this.total)} · ${formatBytes(rate)}/s · ${duration(eta)} left`;
  }
}

/**
 * Progress of `data download` on stderr: on a terminal, one bar for everything and one per file in flight (bytes,
 * rate, time left); otherwise only retries and the summary (a log gets no redraws). Nothing with --quiet.
 */
export function downloadProgress(quiet: boolean): { onEvent: (e: DownloadEvent) => void; stop: () => void } {
  if (quiet) return { onEvent: () => {}, stop: () => {} };
  if (!process.stderr.isTTY) {
    return { onEvent: (e) => e.kind === 'retry' && process.stderr.write(`cxrbench: ${e.message}\n`), stop: () => {} };
  }
  const bars = new cliProgress.MultiBar({ format: '{bar} {label} {status}', stream: process.stderr, hideCursor: true, clearOnComplete: false }, cliProgress.Presets.shades_classic);
  let overall: Meter | null = null;
  let overallBar: cliProgress.SingleBar | null = null;
  const files = new Map<string, { meter: Meter; bar: cliProgress.SingleBar }>();
  let extracted = '';
  const drawOverall = () => overall && overallBar?.update(overall.done, { label: 'all', status: `${overall.line()}${extracted}` });
  return {
    onEvent(e) {
      if (e.kind === 'plan') {
        const total = e.files.reduce((n, f) => n + f.size, 0);
        overall = new Meter(e.files.reduce((n, f) => n + f.have, 0), total);
        overallBar = bars.create(Math.max(total, 1), overall.done, { label: 'all', status: overall.line() });
      } else if (e.kind === 'file-start') {
        const meter = new Meter(e.have, e.size);
        files.set(e.name, { meter, bar: bars.create(Math.max(e.size, 1), e.have, { label: e.name, status: meter.line() }) });
      } else if (e.kind === 'bytes') {
        const f = files.get(e.name);
        if (!f) return;
        f.meter.add(e.delta);
        overall?.add(e.delta);
        f.bar.update(f.meter.done, { label: e.name, status: f.meter.line() });
        drawOverall();
      } else if (e.kind === 'file-done') {
        const f = files.get(e.name);
        if (f) bars.remove(f.bar);
        files.delete(e.name);
      } else if (e.kind === 'extract') {
        extracted = ` · extracted ${e.journal.filesOut} images (${formatBytes(e.journal.bytesOut)}), part ${Math.min(e.journal.partsRead + 1, e.parts)}/${e.parts}`;
        drawOverall();
      } else if (e.kind === 'retry') {
        bars.log(`cxrbench: ${e.message}\n`);
      }
    },
    stop: () => bars.stop(),
  };
}
