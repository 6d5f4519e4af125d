/**
 * The labelled corpora (test/fixtures/assertion-corpus, generation-corpus) name every fracture other than a rib's
 * "other fracture" and give its kind in `subtype`; the vocabulary tells the kinds apart (issue #23). Compared under
 * the corpus's name.
 */
const CORPUS_NAME: Record<string, string> = { 'clavicle fracture': 'other fracture', 'vertebral compression fracture': 'other fracture', fracture: 'other fracture' };

export const corpusFindingName = (finding: string) => CORPUS_NAME[finding] ?? finding;
