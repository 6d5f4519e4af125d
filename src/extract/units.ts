/** One statement of an output: a sentence, or a line, with where it is. */
export interface Unit {
  text: string;
  start: number;
  end: number;
}

/** Statements longer than this are read in pieces (bounds the work per statement; real sentences are shorter). */
const MAX_UNIT = 2000;
/** A line that introduces what follows ("Answer:", "**Final answer**", "### Conclusion"): read with the next line. */
const ANSWER_WORD = String.raw`(?:answer|choice|conclusion|selection|decision|verdict|response|result|pick|diagnosis|respuesta|resposta|réponse|antwort|risposta|ответ|答案|答え|回答|正解|정답|답)`;
const INTRODUCING_LINE = new RegExp(String.raw`${ANSWER_WORD}[^\n]{0,40}[:：]\s*[*_]*\s*$|^[\s>#*_]*[*_]*\s*(?:final\s+|my\s+|correct\s+)?${ANSWER_WORD}\s*[*_:：]*\s*$`, 'i');
/**
 * A sentence ends at . ! ? … (and their CJK forms) followed by a space and a new sentence, or at 。！？ directly
 * — but not after a lone option letter ("B. Right upper lobe" is one statement).
 */
const SENTENCE_END = /(?<!(?:^|[\s*_#>(\["'“])[A-Da-d])[.!?…](?=\s+(?:[\p{Lu}\p{N}*_#>(\["'“‘-]|[^\p{Script=Latin}\s]))|[。！？](?=.)/gu;

/** At most this many statements are read from the start of an output, and {@link TAIL_UNITS} from its end. */
const HEAD_UNITS = 64;
const TAIL_UNITS = 192;

/**
 * Splits an output into statements: lines, then sentences; a line that introduces an answer joins the next.
 * An output of more statements than a reader would weigh keeps its first and last ones (the answer is stated
 * first or concluded last), which bounds the reading time of any output.
 */
export function splitUnits(text: string): Unit[] {
  const units = allUnits(text);
  return units.length <= HEAD_UNITS + TAIL_UNITS ? units : [...units.slice(0, HEAD_UNITS), ...units.slice(-TAIL_UNITS)];
}

function allUnits(text: string): Unit[] {
  const lines: Unit[] = [];
  let at = 0;
  while (at <= text.length) {
    const newline = text.indexOf('\n', at);
    const end = newline === -1 ? text.length : newline;
    if (text.slice(at, end).trim() !== '') lines.push({ text: text.slice(at, end), start: at, end });
    if (newline === -1) break;
    at = newline + 1;
  }
  const merged: Unit[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const next = lines[i + 1];
    if (next && line.text.length < 120 && INTRODUCING_LINE.test(line.text)) {
      merged.push({ text: text.slice(line.start, next.end), start: line.start, end: next.end });
      i++;
    } else merged.push(line);
  }
  const units: Unit[] = [];
  for (const line of merged) {
    let from = 0;
    for (const m of line.text.matchAll(SENTENCE_END)) {
      const cut = m.index + m[0].length;
      pushPieces(units, line, from, cut);
      from = cut;
    }
    pushPieces(units, line, from, line.text.length);
  }
  return units;
}

function pushPieces(units: Unit[], line: Unit, from: number, to: number): void {
  let a = from;
  while (a < to) {
    let b = Math.min(to, a + MAX_UNIT);
    if (b < to) {
      // Cut between words: a cut inside a word could leave a stray letter that reads as an option.
      const space = line.text.slice(a, b).search(/\s\S*$/);
      if (space > MAX_UNIT / 2) b = a + space + 1;
    }
    const piece = line.text.slice(a, b);
    const lead = piece.length - piece.trimStart().length;
    const trimmed = piece.trim();
    if (trimmed !== '') units.push({ text: trimmed, start: line.start + a + lead, end: line.start + a + lead + trimmed.length });
    a = b;
  }
}
