import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The IU X-ray (Open-i) report CSVs, read at run time and never copied into the repository (CC BY-NC-ND: no
 * derivatives). Found through CXRBENCH_IU_REPORTS, next to the checkout (../shared/data), or in /work/shared/data.
 * A test that needs them fails, naming the places looked, rather than skipping.
 */
export function iuReportsDir(): string {
  const repo = fileURLToPath(new URL('../../', import.meta.url));
  const places = [process.env.CXRBENCH_IU_REPORTS, join(repo, '..', 'shared', 'data', 'iu-xray-openi-reports'), '/work/shared/data/iu-xray-openi-reports'].filter((p): p is string => !!p);
  const found = places.find((p) => existsSync(join(p, 'indiana_reports.csv')));
  if (!found) throw new Error(`the IU X-ray reports (indiana_reports.csv) are not in any of: ${places.join(', ')}; set CXRBENCH_IU_REPORTS`);
  return found;
}
