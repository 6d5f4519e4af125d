/**
 * Parses a stringified list the way real ReXVQA files carry them: `"['../a.png', '../b.png']"` (Python repr)
 * or `"[\"PA\", \"LATERAL\"]"` (JSON). Items may be strings (single or double quoted, with backslash escapes),
 * numbers, None/null, True/False. Returns null when the text is not such a list, so the caller reports it.
 */
export function parseStringifiedList(text: string): unknown[] | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith('[') || !trimmed.endsWith(']')) return null;
  // Python's repr quotes with ' — skip the doomed (and, thrown 28K times, slow) JSON attempt.
  if (/^\[\s*'/.test(trimmed)) return parsePythonList(trimmed);
  try {
    const value: unknown = JSON.parse(trimmed);
    return Array.isArray(value) ? value : null;
  } catch {
    return parsePythonList(trimmed);
  }
}

const PY_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };

function parsePythonList(text: string): unknown[] | null {
  const items: unknown[] = [];
  let i = 1;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  skipSpace();
  if (text[i] === ']') return i === text.length - 1 ? items : null;
  for (;;) {
    skipSpace();
    const c = text[i];
    if (c === "'" || c === '"') {
      let out = '';
      i++;
      while (i < text.length && text[i] !== c) {
        if (text[i] === '\\' && i + 1 < text.length) {
          const next = text[i + 1]!;
          out += PY_ESCAPES[next] ?? `\\${next}`;
          i += 2;
        } else out += text[i++];
      }
      if (i >= text.length) return null;
      i++;
      items.push(out);
    } else {
      const m = /^(None|null|True|False|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|nan|NaN)/.exec(text.slice(i));
      if (!m) return null;
      const word = m[1]!;
      items.push(word === 'None' || word === 'null' || word.toLowerCase() === 'nan' ? null : word === 'True' ? true : word === 'False' ? false : Number(word));
      i += word.length;
    }
    skipSpace();
    if (text[i] === ',') {
      i++;
      skipSpace();
      if (text[i] === ']') return i === text.length - 1 ? items : null; // trailing comma, as Python allows
      continue;
    }
    if (text[i] === ']') return i === text.length - 1 ? items : null;
    return null;
  }
}
