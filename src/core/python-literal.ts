/**
 * Readers of Python literals as real files and model outputs carry them: stringified lists in ReXVQA records
 * (`"['../a.png', '../b.png']"`) and Python dicts printed by models (`{'answer': 'b', 'sure': True}`).
 * Strings may be single or double quoted with backslash escapes; None/True/False/nan are understood.
 */

/** Parses a stringified list (Python repr or JSON); null when the text is not such a list, so the caller reports it. */
export function parseStringifiedList(text: string): unknown[] | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith('[') || !trimmed.endsWith(']')) return null;
  // Python's repr quotes with ' — skip the doomed (and, thrown 28K times, slow) JSON attempt.
  if (!/^\[\s*'/.test(trimmed)) {
    try {
      const value: unknown = JSON.parse(trimmed);
      return Array.isArray(value) ? value : null;
    } catch {
      // fall through to the Python reader
    }
  }
  const parsed = parsePythonLiteral(trimmed);
  return Array.isArray(parsed) ? parsed : null;
}

/**
 * Parses one Python literal (dict, list, tuple, string, number, None/True/False) that spans the whole text;
 * undefined when it is not one. Nesting is limited (64 levels): deeper input is not a literal a model prints.
 */
export function parsePythonLiteral(text: string): unknown {
  const reader = new LiteralReader(text);
  reader.space();
  const value = reader.value(0);
  reader.space();
  return value === FAIL || reader.at < text.length ? undefined : value;
}

const FAIL = Symbol('not a literal');
const MAX_DEPTH = 64;
const PY_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };
const WORD = /(None|null|True|true|False|false|nan|NaN|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/y;

class LiteralReader {
  at = 0;
  constructor(private readonly text: string) {}

  space(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at]!)) this.at++;
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) return FAIL;
    const c = this.text[this.at];
    if (c === "'" || c === '"') return this.string(c);
    if (c === '[' || c === '(') return this.sequence(c === '[' ? ']' : ')', depth);
    if (c === '{') return this.dict(depth);
    WORD.lastIndex = this.at;
    const m = WORD.exec(this.text);
    if (!m) return FAIL;
    this.at += m[1]!.length;
    const w = m[1]!;
    if (w === 'None' || w === 'null' || w.toLowerCase() === 'nan') return null;
    if (w === 'True' || w === 'true') return true;
    if (w === 'False' || w === 'false') return false;
    return Number(w);
  }

  private string(quote: string): unknown {
    let out = '';
    this.at++;
    while (this.at < this.text.length && this.text[this.at] !== quote) {
      if (this.text[this.at] === '\\' && this.at + 1 < this.text.length) {
        const next = this.text[this.at + 1]!;
        out += PY_ESCAPES[next] ?? `\\${next}`;
        this.at += 2;
      } else out += this.text[this.at++];
    }
    if (this.at >= this.text.length) return FAIL;
    this.at++;
    return out;
  }

  private sequence(close: string, depth: number): unknown {
    const items: unknown[] = [];
    this.at++;
    for (;;) {
      this.space();
      if (this.text[this.at] === close) {
        this.at++;
        return items;
      }
      const item = this.value(depth + 1);
      if (item === FAIL) return FAIL;
      items.push(item);
      this.space();
      if (this.text[this.at] === ',') this.at++;
      else if (this.text[this.at] !== close) return FAIL;
    }
  }

  private dict(depth: number): unknown {
    const out: Record<string, unknown> = {};
    this.at++;
    for (;;) {
      this.space();
      if (this.text[this.at] === '}') {
        this.at++;
        return out;
      }
      const key = this.value(depth + 1);
      if (key === FAIL || (typeof key !== 'string' && typeof key !== 'number')) return FAIL;
      this.space();
      if (this.text[this.at] !== ':') return FAIL;
      this.at++;
      this.space();
      const value = this.value(depth + 1);
      if (value === FAIL) return FAIL;
      out[String(key)] = value;
      this.space();
      if (this.text[this.at] === ',') this.at++;
      else if (this.text[this.at] !== '}') return FAIL;
    }
  }
}
