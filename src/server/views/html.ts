/** Text already escaped (or trusted markup built by these helpers): inserted as is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

type Part = Html | string | number | null | undefined | false | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

/**
 * Builds HTML where every interpolated value is escaped unless it is already Html. User text (model names,
 * team names, notes) can only ever reach a page through here, so a payload is shown, never run.
 */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

/** HTML attributes from a record: values escaped, `true` as a bare attribute, `false`/undefined left out. */
export function attributes(attrs: Record<string, string | number | boolean | undefined>): Html {
  return new Html(Object.entries(attrs).filter(([, v]) => v !== false && v !== undefined)
    .map(([k, v]) => (v === true ? ` ${k}` : ` ${k}="${escapeHtml(String(v))}"`)).join(''));
}

/** "1 problem", "2 problems": a count with its noun. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A link only when the URL is http(s); anything else (javascript:, data:) is shown as text. */
export function safeLink(url: string | undefined, label: string): Html {
  if (!url) return html``;
  return /^https?:\/\//i.test(url) ? html`<a href="${url}" rel="nofollow noopener">${label}</a>` : html`${url}`;
}
