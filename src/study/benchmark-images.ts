import type { Benchmark } from '../store/benchmarks.js';
import type { Store } from '../store/connect.js';
import { imageContentType, storeImage } from '../store/images.js';
import { decodableImage, readCaseSet, readImageFile } from './case-source.js';

/**
 * Stores the images of a benchmark's questions (from the dataset it was loaded from), so reader studies can be
 * drawn from it in the browser. Returns how many were stored and the paths that were not found.
 */
export async function storeBenchmarkImages(store: Store, benchmark: Benchmark, data: string, split: string): Promise<{ stored: number; missing: string[] }> {
  const set = await readCaseSet(data, [split]);
  const seen = new Set<string>();
  const missing: string[] = [];
  let stored = 0;
  await store.db.transaction().execute(async (tx) => {
    for (const c of set.cases) {
      for (const listed of c.images) {
        if (seen.has(listed.path)) continue;
        seen.add(listed.path);
        const image = await decodableImage(listed);
        const content = readImageFile(image);
        if (!content || !image.file) {
          missing.push(image.path);
          continue;
        }
        const sha256 = await storeImage(tx, content, imageContentType(image.file)!);
        await tx.insertInto('benchmark_images').values({ benchmark_id: benchmark.id, path: image.path, sha256 }).onConflict((oc) => oc.columns(['benchmark_id', 'path']).doUpdateSet({ sha256 })).execute();
        stored++;
      }
    }
  });
  return { stored, missing };
}
