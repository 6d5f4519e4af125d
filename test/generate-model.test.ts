/**
 * The model-backed generator (issue #12) against a local stand-in that speaks the OpenAI chat-completions protocol:
 * report → bullets → MCQs with the JSON schema; malformed JSON, schema violations, refusals, 429 and 5xx become
 * recorded rejections or retries, never a crash; the journal makes a rerun (and a run killed with SIGKILL) ask
 * nothing it already has.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from './helpers/cli.js';
import { startFakeOpenAI, type RecordedRequest } from './helpers/fake-openai-server.js';
import { tempDir } from './helpers/records.js';

const REPORTS = [
  'Small left pleural effusion. No pneumothorax.', 'Right lower lobe consolidation. No pleural effusion.', 'Mild cardiomegaly. No pneumothorax.',
  'Small right pleural effusion. No consolidation.', 'Left lower lobe atelectasis. No pneumothorax.', 'Large left pleural effusion.',
  'Right upper lobe mass.', 'Hiatal hernia.', 'Left rib fracture.', 'Right pneumothorax. No pleural effusion.',
];
const jsonl = (file: string) => readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

/** The stand-in model: bullets echo the findings; MCQs are built from them, with a broken reply for three findings. */
function reply(request: RecordedRequest): string {
  if (request.text.includes('as bullet points')) return `- ${/FINDINGS: (.*)/.exec(request.text)?.[1] ?? ''}`;
  const bullets = request.text.slice(request.text.indexOf('FINDINGS:'));
  if (bullets.includes('mass')) return 'Here are your questions: {"questions": [ {"question"';
  if (bullets.includes('hernia')) return JSON.stringify({ questions: [{ question: 'Which finding?', options: ['Hiatal hernia', 'Pneumothorax'], answer: 'A', explanation: 'x', task_name: 'Presence Assessment', category: 'Abdomen', subcategory: 'Hernia', difficulty: 'easy' }] });
  if (bullets.includes('fracture')) return "I'm sorry, but I can't help with writing exam questions.";
  const finding = ['pleural effusion', 'consolidation', 'cardiomegaly', 'atelectasis', 'pneumothorax'].find((f) => new RegExp(`(?<!no )${f}`, 'i').test(bullets.replace(/No [a-z ]+\./g, '')))!;
  const options = [finding, ...['rib fracture', 'pleural plaque', 'hiatal hernia'].filter((f) => f !== finding)].slice(0, 4).map((o) => o[0]!.toUpperCase() + o.slice(1));
  return '```json\n' + JSON.stringify({ questions: [{ question: 'Which of the following findings is present on this chest radiograph?', options, answer: 'A', explanation: `The findings describe ${finding}.`, task_name: 'Presence Assessment', category: 'Lung and Pleural Opacity', subcategory: 'Finding', difficulty: 'medium' }] }) + '\n```';
}

/** The reports imported as a corpus, and the generate command for them against the stand-in. */
async function imported(url: string, concurrency: number): Promise<{ out: string; args: string[] }> {
  const dir = tempDir();
  writeFileSync(join(dir, 'reports.jsonl'), REPORTS.map((findings, i) => JSON.stringify({ id: `s${i}`, patient: `p${i}`, findings, impression: null, images: [`img/${i}.png`] })).join('\n') + '\n');
  const corpus = join(dir, 'corpus.jsonl');
  assert.equal((await runCli(['corpus', 'import', join(dir, 'reports.jsonl'), '--format', 'jsonl', '--out', corpus])).code, 0);
  const out = join(dir, 'set');
  // The stand-in's canned questions put the key in one form every time, so blind guessers pass them: the default
  // limit would remove them all. Here the pipeline is measured (--max-blind-accuracy 1); the audit has its own tests.
  return { out, args: ['generate', corpus, '--out', out, '--generator', 'openai:gen-model', '--endpoint', url, '--concurrency', String(concurrency), '--max-blind-accuracy', '1'] };
}

test('model-backed generate: bullets then schema-constrained MCQs; broken replies recorded per report; 429 and 500 retried; a rerun asks nothing', { timeout: 120_000 }, async () => {
  const server = await startFakeOpenAI({ reply, retryAfterSeconds: 0, fault: (i) => (i === 1 ? '429' : i === 4 ? '500' : null) });
  try {
    const { out, args } = await imported(server.url, 2);
    const first = await runCli(args);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /model-backed: gen-model, report → bullets → questions/);
    const chats = server.requests.filter((r) => r.path.endsWith('/chat/completions'));
    const mcq = chats.filter((r) => r.text.includes('multiple-choice'));
    assert.ok(mcq.length >= 10 && mcq.every((r) => (r.body as { response_format?: { type: string } }).response_format?.type === 'json_schema'), 'MCQ requests carry the JSON schema');
    assert.equal(chats.filter((r) => r.fault !== null).length, 2);
    const card = JSON.parse(readFileSync(join(out, 'dataset-card.json'), 'utf8')) as { generator: { kind: string; model: string }; prompts: { id: string; sha256: string }[]; questions: { kept: number } };
    assert.deepEqual([card.generator.kind, card.generator.model], ['model', 'gen-model']);
    assert.deepEqual(card.prompts.map((p) => p.id), ['cxrbench-report-bullets', 'cxrbench-bullets-to-mcq']);
    assert.ok(card.questions.kept >= 5, `${card.questions.kept} kept`);
    // A model's questions get the same shortcut audit as the templates' (#23 item 7).
    const audit = (card as unknown as { shortcuts: { questions: number; guessers: { guesser: string }[]; limit: { share: number } } }).shortcuts;
    assert.deepEqual([audit.questions, audit.guessers.length, audit.limit.share], [card.questions.kept, 8, 1]);
    const rejections = jsonl(join(out, 'rejections.jsonl')) as { validator: string; reason: string }[];
    const generation = rejections.filter((r) => r.validator === 'generation').map((r) => r.reason.split(':')[0]);
    assert.deepEqual(generation.sort(), ['not JSON (Unexpected token \'H\', "Here are y"... is not valid JSON)', 'question 1 breaks the schema', 'the model refused'].sort());
    const accounts = jsonl(join(out, 'reports.jsonl')) as { kept: number; reason: string | null }[];
    assert.equal(accounts.length, REPORTS.length);
    assert.equal(accounts.filter((a) => a.reason?.startsWith("the model's reply gave no usable question")).length, 3);
    const validated = await runCli(['data', 'validate', out]);
    assert.equal(validated.code, 0, validated.stdout);
    const asked = server.requests.length;
    const firstCard = readFileSync(join(out, 'dataset-card.json'), 'utf8');
    const again = await runCli(args);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(server.requests.length, asked, 'the journal answers a rerun: nothing asked again');
    assert.equal(readFileSync(join(out, 'dataset-card.json'), 'utf8'), firstCard, 'the same set again, from the journal');
  } finally {
    await server.close();
  }
});

test('model-backed generate killed with SIGKILL mid-run resumes: no request answered before the kill is sent again', { timeout: 120_000 }, async () => {
  const server = await startFakeOpenAI({ reply, latencyMs: 150 });
  try {
    const { out, args } = await imported(server.url, 1);
    const bin = fileURLToPath(new URL('../bin/cxrbench.js', import.meta.url));
    const child = spawn(process.execPath, [bin, ...args], { stdio: 'ignore' });
    for (let i = 0; i < 400 && server.requests.filter((r) => r.path.endsWith('/chat/completions')).length < 8; i++) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const beforeKill = server.requests.filter((r) => r.path.endsWith('/chat/completions')).length;
    assert.ok(beforeKill >= 8 && beforeKill < 2 * REPORTS.length, `${beforeKill} requests before the kill`);
    const resumed = await runCli(args);
    assert.equal(resumed.code, 0, resumed.stderr);
    const texts = server.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.text);
    const repeated = texts.length - new Set(texts).size;
    assert.ok(repeated <= 1, `${repeated} requests sent twice (at most the one in flight at the kill)`);
    assert.equal(new Set(texts).size, 2 * REPORTS.length, 'every report asked for its bullets and its questions');
    assert.equal((jsonl(join(out, 'reports.jsonl'))).length, REPORTS.length);
  } finally {
    await server.close();
  }
});

test('diversity by embeddings: generate and check ask an /embeddings endpoint and the card says so; an endpoint that fails is a clear error', { timeout: 120_000 }, async () => {
  const server = await startFakeOpenAI({ reply });
  const down = await startFakeOpenAI({ embeddingsFault: true });
  try {
    const { out, args } = await imported(server.url, 2);
    const offline = args.slice(0, 4);
    const run = await runCli([...offline, '--embeddings', 'embed-model', '--embeddings-endpoint', server.url]);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(server.embeddingRequests.length > 0 && server.embeddingRequests.every((r) => r.model === 'embed-model'));
    const card = JSON.parse(readFileSync(join(out, 'dataset-card.json'), 'utf8')) as { diversity: { vectors: string; model: string } };
    assert.deepEqual([card.diversity.vectors, card.diversity.model], ['embeddings', 'embed-model']);
    const checked = await runCli(['check', out, '--embeddings', 'embed-model', '--embeddings-endpoint', server.url]);
    assert.equal(checked.code, 0, checked.stdout);
    const failing = await runCli([...offline, '--embeddings', 'embed-model', '--embeddings-endpoint', down.url]);
    assert.equal(failing.code, 2);
    assert.match(failing.stderr, /embeddings from http:\/\/127\.0\.0\.1:\d+\/v1 \(model embed-model\) failed/);
    assert.doesNotMatch(failing.stderr, /\n\s+at /, 'no stack trace');
    const half = await runCli([...offline, '--embeddings', 'embed-model']);
    assert.equal(half.code, 2);
    assert.match(half.stderr, /--embeddings <model> and --embeddings-endpoint <base URL> go together/);
  } finally {
    await server.close();
    await down.close();
  }
});

test('content judge: c1–c3 asked of a model about every question the heuristics passed; its failures and unreadable replies are rejections; a rerun asks nothing', { timeout: 120_000 }, async () => {
  // The judge fails c3 whenever "Hiatal hernia" is an option, and answers location questions with prose.
  const judgeReply = (r: RecordedRequest) => {
    if (r.text.includes('Question: Where is')) return 'Looks fine to me.';
    const c3 = !r.text.includes('Hiatal hernia');
    return JSON.stringify({ c1: { pass: true, reason: 'chest X-ray' }, c2: { pass: true, reason: 'needs the image' }, c3: { pass: c3, reason: c3 ? 'supported' : 'the report does not rule out a hernia' } });
  };
  const judge = await startFakeOpenAI({ reply: judgeReply });
  try {
    const { out, args } = await imported(judge.url, 2);
    const withJudge = [...args.slice(0, 4), '--content-judge', 'openai:judge-model', '--content-judge-endpoint', judge.url];
    const run = await runCli(withJudge);
    assert.equal(run.code, 0, run.stderr);
    const card = JSON.parse(readFileSync(join(out, 'dataset-card.json'), 'utf8')) as { contentJudge: { model: string; prompt: { id: string } }; validators: { validator: string; checked: number; passed: number }[] };
    assert.deepEqual([card.contentJudge.model, card.contentJudge.prompt.id], ['judge-model', 'cxrbench-question-judge']);
    const c3 = card.validators.find((v) => v.validator === 'c3 (judge)')!;
    assert.ok(c3.checked > 0 && c3.passed < c3.checked, `c3 (judge) ${c3.passed}/${c3.checked}`);
    const rejections = jsonl(join(out, 'rejections.jsonl')) as { validator: string; reason: string }[];
    assert.ok(rejections.some((r) => r.validator === 'c3 (judge)' && r.reason === 'judge: the report does not rule out a hernia'));
    assert.ok(rejections.some((r) => r.validator === 'judge' && r.reason.startsWith('judge reply unreadable: Looks fine to me.')));
    const kept = jsonl(join(out, 'history.jsonl')).length;
    assert.ok(kept > 0);
    const asked = judge.requests.length;
    assert.equal((await runCli(withJudge)).code, 0);
    assert.equal(judge.requests.length, asked, 'judged questions are not asked again');
  } finally {
    await judge.close();
  }
});

test('PHI model: identifiers the rules miss are redacted and counted; a report it cannot screen gives no question, with the reason; its journal stays outside the output', { timeout: 120_000 }, async () => {
  // The stand-in lists the name it was planted with; it fails for the report about a mass.
  const phi = await startFakeOpenAI({
    reply: (r) => JSON.stringify({ identifiers: r.text.includes('Oluwaseun Adebayo-Okafor') ? [{ text: 'Oluwaseun Adebayo-Okafor', kind: 'name' }] : [] }),
    fault: (_i, r) => (r.text.includes('mass') ? '500' : null),
  });
  try {
    const dir = tempDir();
    const rows = REPORTS.map((findings, i) => ({ id: `s${i}`, findings: i === 0 ? `${findings} Oluwaseun Adebayo-Okafor is the patient.` : findings, images: [`img/${i}.png`] }));
    writeFileSync(join(dir, 'r.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    assert.equal((await runCli(['corpus', 'import', join(dir, 'r.jsonl'), '--format', 'jsonl', '--out', join(dir, 'c.jsonl')])).code, 0);
    const out = join(dir, 'set');
    const run = await runCli(['generate', join(dir, 'c.jsonl'), '--out', out, '--phi-model', 'openai:phi-model', '--phi-model-endpoint', phi.url]);
    assert.equal(run.code, 0, run.stderr);
    const card = JSON.parse(readFileSync(join(out, 'dataset-card.json'), 'utf8')) as { phiModel: { model: string }; phi: { reports: { kinds: string[] }[] } };
    assert.equal(card.phiModel.model, 'phi-model');
    assert.ok(card.phi.reports.some((r) => r.kinds.includes('name')), 'the model found the name');
    const accounts = jsonl(join(out, 'reports.jsonl')) as { reason: string | null }[];
    assert.equal(accounts.filter((a) => a.reason?.startsWith('the PHI model could not screen it (server')).length, 1);
    const everything = readFileSync(join(out, 'dataset-card.json'), 'utf8') + readFileSync(join(out, 'reports.jsonl'), 'utf8') + readFileSync(join(out, 'metadata', 'train_vqa_data.json'), 'utf8');
    assert.doesNotMatch(everything, /Adebayo/);
    assert.match(readFileSync(`${out}.phi-journal.jsonl`, 'utf8'), /Adebayo/, 'the journal is beside the output, not in it');
  } finally {
    await phi.close();
  }
});

test('model-backed generate through the batch API: a round of bullets, then a round of questions; a rerun submits nothing', { timeout: 120_000 }, async () => {
  const server = await startFakeOpenAI({ reply, batchPollsUntilDone: 1 });
  try {
    const { out, args } = await imported(server.url, 2);
    const batchArgs = [...args, '--batch', '--poll-seconds', '0'];
    const run = await runCli(batchArgs);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(server.batches.map((b) => b.lines), [REPORTS.length, REPORTS.length], 'one bullets batch, one questions batch');
    const card = JSON.parse(readFileSync(join(out, 'dataset-card.json'), 'utf8')) as { generator: { kind: string }; questions: { kept: number } };
    assert.equal(card.generator.kind, 'model');
    assert.ok(card.questions.kept >= 5);
    assert.equal(jsonl(join(out, 'rejections.jsonl')).filter((r) => r.validator === 'generation').length, 3, 'broken replies recorded as in online mode');
    assert.equal((await runCli(batchArgs)).code, 0);
    assert.equal(server.batches.length, 2, 'a rerun submits no batch');
    const offlineBatch = await runCli([...args.slice(0, 4), '--batch']);
    assert.equal(offlineBatch.code, 2);
    assert.match(offlineBatch.stderr, /--batch sends a model's requests/);
  } finally {
    await server.close();
  }
});
