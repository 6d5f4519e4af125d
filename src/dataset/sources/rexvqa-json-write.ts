import type { Question } from '../../core/question.js';
import { toOfficialRecord } from '../../core/official-record.js';
import { writeFileAtomically } from './atomic-write.js';

/** Writes questions as an official `<split>_vqa_data.json` (one object keyed by question id), streaming and atomically. */
export async function writeRexvqaJson(questions: AsyncIterable<Question> | Iterable<Question>, file: string): Promise<number> {
  let written = 0;
  await writeFileAtomically(file, async function* () {
    yield '{';
    for await (const q of questions) {
      yield `${written === 0 ? '\n' : ',\n'}  ${JSON.stringify(q.id)}: ${JSON.stringify(toOfficialRecord(q))}`;
      written++;
    }
    yield written === 0 ? '}\n' : '\n}\n';
  });
  return written;
}
