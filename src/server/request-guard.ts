import type { FastifyInstance, FastifyRequest } from 'fastify';

/** A request refused before any route sees it: a 400 the app's error handler shows as a page or as JSON. */
class RefusedRequest extends Error {
  readonly statusCode = 400;
  readonly code = 'CXR_REFUSED_REQUEST';
}

const NUL = '\u0000';

/** Where in a request a value came from, as the refusal names it. */
type Place = 'path' | 'query' | 'field' | 'header' | 'cookie';

function where(place: Place, name: string): string {
  if (!name) return 'the body';
  return place === 'path' ? `the path (at :${name})` : place === 'query' ? `the query parameter "${name}"` : place === 'field' ? `the field "${name}"` : place === 'header' ? `the header ${name}` : `the cookie ${name}`;
}

/** Where the first NUL byte is in a name or text value (nested values searched too), or null. */
function nulIn(values: unknown, place: Place, prefix = ''): string | null {
  if (typeof values === 'string') return values.includes(NUL) ? where(place, prefix) : null;
  if (values === null || typeof values !== 'object' || Buffer.isBuffer(values)) return null;
  for (const [key, value] of Object.entries(values)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (key.includes(NUL)) return where(place, name.replaceAll(NUL, '\\0'));
    const found = nulIn(value, place, name);
    if (found) return found;
  }
  return null;
}

/** Says why a NUL byte is refused, naming where it was (and what became of the request). */
export function nulMessage(place: string, outcome = 'nothing was done'): string {
  return `${place} holds a NUL byte (\\0), which no name, id or text here may contain; ${outcome}`;
}

/**
 * A body's fields must each be one value: a form field sent twice arrives as a list (formbody), and a JSON body
 * can nest anything, but every route reads each field as one text, number or choice. A page's form (any route
 * without /api/ in its path) takes text only, as a browser sends it; the JSON APIs parse their own scalars.
 * Returns the refusal, or null.
 */
function notSingleValued(body: unknown, form: boolean): string | null {
  if (body === null || body === undefined || typeof body !== 'object' || Buffer.isBuffer(body)) return null;
  if (Array.isArray(body)) return 'the body is a list; send the fields as one form or one JSON object';
  for (const [key, value] of Object.entries(body)) {
    if (Array.isArray(value)) return `the field "${key}" was sent ${value.length} times; send it once`;
    if (value !== null && typeof value === 'object') return `the field "${key}" is an object; send it as one value (text or a number)`;
    if (form && typeof value !== 'string') return `the field "${key}" is ${value === null ? 'null' : `a ${typeof value}`}; a form's fields are text`;
  }
  return null;
}

function refuse(message: string): never {
  throw new RefusedRequest(message);
}

/**
 * One guard for every route, so no handler has to remember it: a NUL byte anywhere a client can put one (path,
 * query, headers, cookies, form or JSON body) is refused with a 400 naming where — PostgreSQL cannot store a NUL in
 * text and fails the whole query, and no id, name or answer here has one — and so is a form field sent twice or a
 * nested field. Multipart uploads are checked as they stream (upload.ts), as their body is never parsed here.
 */
export function registerRequestGuard(app: FastifyInstance): void {
  // Before the caller is resolved: tokens and cookies are looked up in the database.
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const found = nulIn(request.params, 'path') ?? nulIn(request.query, 'query') ?? nulIn(request.headers, 'header') ?? nulIn(request.cookies, 'cookie');
    if (found) refuse(nulMessage(found));
  });
  app.addHook('preValidation', async (request: FastifyRequest) => {
    // Single values first: the NUL search below then never descends more than one level.
    const problem = notSingleValued(request.body, !request.routeOptions.url?.includes('/api/'));
    if (problem) refuse(`${problem}; nothing was done`);
    const found = nulIn(request.body, 'field');
    if (found) refuse(nulMessage(found));
  });
}
