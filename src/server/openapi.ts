import { z } from 'zod';
import { ModelCard } from '../board/model-card.js';
import { TOOL_VERSION } from '../core/version.js';

const error = { type: 'object', properties: { error: { type: 'string' }, message: { type: 'string' } }, required: ['error', 'message'] };
const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema } } });
const problem = { type: 'object', properties: { code: { type: 'string' }, count: { type: 'integer' }, firstIds: { type: 'array', items: { type: 'string' } }, message: { type: 'string' } } };
const estimate = { type: 'object', properties: { value: { type: 'number' }, lo: { type: 'number' }, hi: { type: 'number' }, n: { type: 'integer' } } };
const entry = {
  type: 'object',
  description: 'One leaderboard row: aggregates only (no per-item results).',
  properties: {
    id: { type: 'string' }, rank: { type: ['integer', 'null'], description: 'null for reported rows and for entries without the ranking metric (see unranked)' }, tier: { type: ['integer', 'null'] },
    unranked: { type: ['string', 'null'], description: 'why an entry has no rank, e.g. "1/RadCliQ-v1 not computed"; it is then listed after every row that has the ranking metric' }, kind: { enum: ['participant', 'baseline', 'reported'] },
    model: { $ref: '#/components/schemas/ModelCard' }, team: { type: ['string', 'null'] }, overall: { type: 'number' }, micro: { type: ['number', 'null'] },
    n: { type: 'integer' }, unparseable: { type: 'integer' },
    metrics: { type: ['object', 'null'], properties: { overall: { type: 'object', properties: { accuracy: estimate, bootstrap: estimate } }, rexrankOverall: estimate, byTask: { type: 'object' }, byCategory: { type: 'object' } } },
  },
};
const bearer = [{ token: [] }];
const slug = { name: 'slug', in: 'path', required: true, schema: { type: 'string' } };
const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

/** The OpenAPI 3.1 document of the JSON API. */
export function openApiDocument() {
  return {
    openapi: '3.1.0',
    info: { title: 'cxrbench board API', version: TOOL_VERSION, description: 'A self-hosted ReXrank: hidden test labels, scored submissions, ranked entries. Writes need an API token (account page).' },
    components: {
      securitySchemes: { token: { type: 'http', scheme: 'bearer', description: 'An API token from your account page (cxr_…)' } },
      schemas: { ModelCard: z.toJSONSchema(ModelCard, { io: 'input' }), Entry: entry, Problem: problem, Error: error },
    },
    paths: {
      '/api/benchmarks': { get: { summary: 'Benchmarks on this board', responses: { 200: json({ type: 'array', items: { type: 'object' } }, 'slug, title, version, sha256, items, open, limits') } } },
      '/api/benchmarks/{slug}/leaderboard': { get: { summary: 'The ranked entries of a benchmark', parameters: [slug], responses: { 200: json({ type: 'object', properties: { benchmark: { type: 'object' }, entries: { type: 'array', items: { $ref: '#/components/schemas/Entry' } } } }, 'ranked entries'), 404: json(error, 'no such benchmark') } } },
      '/api/benchmarks/{slug}/questions': { get: { summary: 'The test questions to answer (no answers, no explanations)', parameters: [slug], responses: { 200: json({ type: 'object', additionalProperties: { type: 'object' } }, 'records keyed by question id'), 404: json(error, 'no such benchmark') } } },
      '/api/benchmarks/{slug}/submissions': {
        post: {
          summary: 'Submit predictions: checked at once (every problem listed when refused), stored and queued; a worker scores it — follow the status URL', security: bearer, parameters: [slug],
          requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object', required: ['file', 'model'], properties: { file: { type: 'string', format: 'binary', description: 'ReXrank JSON, JSONL {id, prediction} or CSV id,prediction' }, model: { type: 'string', description: 'a ModelCard as JSON' } } } } } },
          responses: { 202: json({ type: 'object', properties: { submission: { type: 'string' }, state: { enum: ['queued'] }, status: { type: 'string', description: 'the status URL (also in the Location header)' } } }, 'stored and queued for scoring'), 400: json({ type: 'object', properties: { error: { type: 'string' }, problems: { type: 'array', items: { $ref: '#/components/schemas/Problem' } } } }, 'nothing stored: the problems of the file'), 401: json(error, 'no or bad token'), 403: json(error, 'closed, or no team'), 409: json(error, 'the team sent this exact file before (not stored, no submission used)'), 413: json(error, 'file too large'), 429: json(error, 'submission or upload limit reached') },
        },
      },
      '/api/submissions': { get: { summary: "Your team's submissions", security: bearer, responses: { 200: json({ type: 'array', items: { type: 'object' } }, 'submissions with state and error'), 401: json(error, 'no or bad token') } } },
      '/api/submissions/{id}': { get: { summary: 'One submission of your team: queued → scoring → scored (with its entry) or failed (with why)', security: bearer, parameters: [id], responses: { 200: json({ type: 'object', properties: { id: { type: 'string' }, state: { enum: ['queued', 'scoring', 'scored', 'failed'] }, error: { type: ['string', 'null'] }, attempts: { type: 'integer' }, entry: { oneOf: [{ $ref: '#/components/schemas/Entry' }, { type: 'null' }] } } }, 'the submission'), 404: json(error, 'no submission of your team with that id') } } },
      '/api/submissions/{id}/retry': { post: { summary: 'Queue a failed submission for scoring again', security: bearer, parameters: [id], responses: { 202: json({ type: 'object', properties: { submission: { type: 'string' }, state: { type: 'string' }, status: { type: 'string' } } }, 'queued again'), 404: json(error, 'no failed submission of your team') } } },
      '/api/entries/{id}': { get: { summary: 'One entry', parameters: [id], responses: { 200: json({ $ref: '#/components/schemas/Entry' }, 'the entry'), 404: json(error, 'no such entry') } } },
      '/api/tokens': {
        get: { summary: 'Your API tokens (never the tokens themselves)', security: bearer, responses: { 200: json({ type: 'array', items: { type: 'object' } }, 'tokens') } },
        post: { summary: 'Create a token (shown once)', security: bearer, requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } } } } } }, responses: { 201: json({ type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, token: { type: 'string' } } }, 'the new token') } },
      },
      '/api/tokens/{id}': { delete: { summary: 'Revoke a token', security: bearer, parameters: [id], responses: { 204: { description: 'revoked' }, 404: json(error, 'no such token') } } },
    },
  };
}
