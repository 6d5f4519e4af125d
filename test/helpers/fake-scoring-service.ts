import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { greenReply } from './green-reply.js';

/**
 * A stand-in scoring service speaking the documented protocol (docs/rrg.md), with a toy "model": a token's
 * embedding is a one-hot vector of its hash (so BERTScore matches equal tokens), a report's CheXbert embedding is
 * its bag of words, RadGraph entities are the words of a small lexicon, GREEN's judge replies in GREEN's format with
 * the shared lexicon words matched and the reference's missing ones as significant errors (b) — `/legacy/green`
 * answers counts instead, as the first protocol did — RaTEScore's entities are the lexicon words ("normal" a NON-ABNORMALITY, the others ABNORMALITY) with their
 * one-hot embedding. `/broken/*` answers in the wrong shape; any other path is a 404, as a service without that model.
 */
export const LEXICON = ['effusion', 'pneumothorax', 'cardiomegaly', 'consolidation', 'edema', 'normal'];
const DIM = 64;
const hash = (t: string) => [...t].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % DIM, 7);
const words = (text: string) => text.toLowerCase().split(/[^a-z]+/).filter(Boolean);
const oneHot = (t: string) => Array.from({ length: DIM }, (_, i) => (i === hash(t) ? 1 : 0));

/** The toy GREEN judgement of a pair: lexicon words in both are matched, the reference's others are missing (b). */
export function toyGreen(pair: { reference: string; candidate: string }): { matched: string[]; significant: string[][] } {
  const inRef = words(pair.reference).filter((w) => LEXICON.includes(w));
  const inCand = new Set(words(pair.candidate));
  return { matched: inRef.filter((w) => inCand.has(w)), significant: [[], inRef.filter((w) => !inCand.has(w))] };
}

export async function startFakeScoringService(): Promise<{ url: string; calls: string[]; close: () => Promise<void> }> {
  const calls: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      calls.push(req.url!);
      const input = JSON.parse(body) as { texts?: string[]; pairs?: { reference: string; candidate: string }[] };
      const reply = req.url === '/bertscore' ? { embeddings: input.texts!.map((t) => words(t).map(oneHot)) }
        : req.url === '/chexbert' ? { embeddings: input.texts!.map((t) => Array.from({ length: DIM }, (_, i) => words(t).filter((w) => hash(w) === i).length)) }
        : req.url === '/radgraph' ? { graphs: input.texts!.map((t) => ({ entities: words(t).filter((w) => LEXICON.includes(w)).map((w) => ({ text: w, label: 'OBS-DP' })), relations: [] })) }
        : req.url === '/green' ? { replies: input.pairs!.map((p) => greenReply(toyGreen(p))) }
        : req.url === '/legacy/green' ? { counts: input.pairs!.map((p) => ({ matched: toyGreen(p).matched.length, significant_errors: toyGreen(p).significant[1]!.length })) }
        : req.url === '/ratescore' ? { entities: input.texts!.map((t) => words(t).filter((w) => LEXICON.includes(w)).map((w) => ({ text: w, type: w === 'normal' ? 'non-abnormality' : 'ABNORMALITY', embedding: oneHot(w) }))) }
        : req.url === '/broken/bertscore' ? { embeddings: 'nope' }
        : req.url === '/broken/ratescore' ? { entities: input.texts!.map(() => [{ text: 'effusion', type: 'finding', embedding: [1] }]) } : null;
      res.writeHead(reply ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(reply ?? { error: 'no such model' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, close: () => new Promise((r) => server.close(() => r())) };
}
