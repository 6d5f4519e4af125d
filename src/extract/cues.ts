/**
 * The words a careful reader relies on to tell an answer from a discussion: cues that introduce a committed
 * option ("the answer is", "I'd go with", "so", "答案是"), predicates that commit to one after it is named
 * ("… is correct", "… fits best", "✓"), negations that set one aside ("not A", "A is unlikely"), and the
 * markers of hedging, revision and refusal. Every pattern is bounded (no nested unbounded repetition), so
 * reading stays linear in the length of the output.
 */

/**
 * How strongly a statement commits: `explicit` names the answer ("answer", "I choose", a leading "B."); `evaluative`
 * concludes ("so", "is correct", "fits best"); `statement` only names one option as a finding ("The opacity is in
 * the lingula (C).") and counts when nothing stronger is said.
 */
export type CueStrength = 'explicit' | 'evaluative' | 'statement';

/** A kind of cue, reported as the rule that read the answer. */
export interface CueKind {
  rule: string;
  strength: CueStrength;
}

/** Words allowed between a cue and the option it introduces ("the answer is **probably option (B)**"). */
const FILLER_WORD = String.raw`(?:is|was|are|were|be|would|will|should|must|shall|could|has\s+to|have\s+to|going\s+to|gonna|gotta|['’]s|it(?:'s|s)?|yeah|yep|yup|yes|ok|okay|well|like|lol|tbh|imo|ngl|honestly|really|hmm+|um+|uh+|this|that(?:'s)?|here|then|thus|so|therefore|hence|the|an?|my|our|option|options|choice|choices|letter|answer|one|number|no\.?|nr\.?|#|clearly|definitely|def|probably|prob|likely|most|simply|just|still|indeed|obviously|certainly|surely|actually|really|honestly|basically|i|i'd|i'll|i'm|think|believe|say|would|go|with|for|sure|pretty|final|finally|fits|fit|applies|works|matches|best|correct|corr[eé]\w*|right|best|overall|either|between|to|as|of|es|est|ist|è|é|la|el|le|lo|der|die|das|letra|lettre|buchstabe|opci[oó]n|op[cç][aã]o|alternativa|variante|вариант|буква|правильн\w*|giust\w*|richtig\w*|bonne|buena|certa|c'est|c’est|l'|d'|là|đúng|chính\s+xác|هي|هو|الصحيحة|الصحيح|है|सही|是|为|為|选项|選項|選|项|は|です|が|이|가|은|는|을|를|다)`;
/** One filler token: a word, or punctuation and markup that sit between a cue and its option. */
export const FILLER = String.raw`(?:\s+|[*_:=\-–—>"'“”‘’(\[{,：、，]|${FILLER_WORD}(?![\p{L}]))`;

const CUE_SOURCES: [CueKind, string][] = [
  [{ rule: 'final-answer', strength: 'explicit' }, String.raw`final\s+(?:answer|choice|option|selection|pick|decision|diagnosis|response|letter)|\bfinal(?=\s*[:：])|最终答案|最終答案|最終回答`],
  [{ rule: 'answer', strength: 'explicit' }, String.raw`answers?|\bans\b|antwort|respuesta|resposta|r[ée]ponse|risposta|l[öo]sung|ответ|відповідь|odpowied[źz]|antwoord|svar|vastaus|cevap|yan[ıi]t|đáp\s+án|câu\s+trả\s+lời|الإجابة|الجواب|उत्तर|答案|答え|回答|正解|解答|答|정답|답`],
  [{ rule: 'choice', strength: 'explicit' }, String.raw`(?:my|our|the\s+(?:correct|right|best|most\s+\w+|appropriate))\s+(?:option|choice|selection|pick|letter|vote|one|guess|bet)|\b(?:the\s+)?(?:best|closest|correct|right|likeliest|most\s+(?:likely|appropriate|accurate|consistent|probable|fitting|plausible|suitable|reasonable|defensible))\s+(?:fit|match|option|answer|choice|diagnosis|explanation|cause|location|position|one|candidate|pick|description|finding|site|device|level|size|measurement)\s+(?:here\s+|overall\s+|then\s+)?(?:is|would\s+be|seems\s+to\s+be|appears\s+to\s+be|remains)|(?:correct|right|best)\s+(?:option|choice|letter|one)|\b(?:choose|chose|chosen|choosing|select|selected|selecting|pick|picked|picking|go(?:ing)?\s+w(?:ith|\/)|went\s+with|opt(?:ing)?\s+for|settl(?:e|ing)\s+on|vote\s+for|mark(?:ing)?|circle|commit(?:ting)?\s+to|stick(?:ing)?\s+with|stay(?:ing)?\s+with|land(?:ing)?\s+on|lock(?:ing)?\s+in|decid(?:e|ing)\s+on|go(?:ing)?\s+for)|选择|应选|故选|选|選択|選ぶ|選|선택|elijo|escojo|escolho|w[äa]hle|choisis|choisir|scelgo|выбираю|seçiyorum`],
  [{ rule: 'belief', strength: 'evaluative' }, String.raw`\bi\s*(?:'d|’d|would|will|'ll|’ll)?\s*(?:think|believe|say|guess|reckon|suspect|feel|lean(?:ing)?\s+(?:towards?|to))|\bi'?d\s+say|\bi\s+consider|\bi(?:'d|\s+would|\s+will|'ll)?\s+(?:place|put|locali[sz]e|classify|categori[sz]e|label|call|read|interpret)\s+(?:this|it|the\s+\w+)\s+(?:in|as|at|into)|\bgonna\s+(?:say|go)|\b(?:going|gonna)\s+to\s+(?:say|go)|\bi\s+(?:am|'m)\s+going\s+(?:with|to\s+say)|\blooks?\s+like|\bseems?\s+(?:like|to\s+be)|\bsounds?\s+like|\bpretty\s+sure|\bmust\s+be|\bhas\s+to\s+be|\bgotta\s+be|\bdef(?:initely)?|\bdefo|\bprob(?:ably)?|\bprolly|\b(?:most\s+)?likely|\b(?:tbh|imo|imho|ngl|honestly|frankly|obv(?:iously)?|clearly|easily|eh|meh|hmm+|ok(?:ay)?|yeah|yep|yup)\b`],
  [{ rule: 'conclusion', strength: 'evaluative' }, String.raw`\b(?:so|thus|therefore|hence|consequently|accordingly|ergo|overall|conclusion|on\s+balance|all\s+things\s+considered|in\s+(?:conclusion|summary|short|sum|the\s+end)|to\s+(?:conclude|summari[sz]e)|which\s+(?:means|leaves|gives)|that\s+(?:leaves|gives)|leaving|leaves|it(?:'s|s|\s+is)|this\s+is|that(?:'s|\s+is)|diagnosis\s+(?:is|of)|but|which\s+(?:is|would\s+be|corresponds\s+to|matches)|that\s+(?:would\s+be|corresponds\s+to)|i\.e\.|namely|impression|assessment|bottom\s+line|tl;?dr|in\s+other\s+words)\b|→|->|=>|==>|⇒|∴|所以|因此|因而|故|よって|したがって|따라서|por\s+(?:lo\s+)?tanto|portanto|daher|donc|quindi|поэтому|итак`],
  // Evidence words conclude only when nothing in their clause negates them ("no line to suggest a pneumothorax").
  [{ rule: 'evidence', strength: 'evaluative' }, String.raw`\b(?:(?:best|most\s+(?:accurately|closely|appropriately))\s+(?:described|represented|captured|characteri[sz]ed|explained|answered|reflected)\s+(?:by|as)|points?\s+(?:to|toward|towards)|pointing\s+(?:to|toward|towards)|suggest(?:s|ing)?|indicat(?:es|ing)|favou?r(?:s|ing)?|support(?:s|ing)?|consistent\s+with|compatible\s+with|in\s+keeping\s+with|keeping\s+with)\b`],
];

/** Regex alternatives of each cue kind, matched against the text before an option mention. */
const CUES = CUE_SOURCES.map(([kind, source]) => ({ kind, before: new RegExp(String.raw`(?:${source})(?:${FILLER}){0,12}$`, 'iu') }));

/** How much text before a mention is searched for its cue (bounded: a cue far away is not about this mention). */
export const CUE_WINDOW = 72;

/** The cue that introduces a mention, from the text just before it (already cut to {@link CUE_WINDOW}). */
export function cueBefore(textBefore: string): CueKind | null {
  for (const { kind, before } of CUES) if (before.test(textBefore)) return kind;
  return null;
}

/** After a mention: it is committed to ("B is correct", "C: most likely", "C fits best", "D ✓", "B is my answer", "Dが最も適切"). */
const EVALUATION = String.raw`(?:(?:most|more|best|better)\s+(?:likely|appropriate|accurate|consistent|probable|fitting|plausible|suitable|reasonable|correct|supported|compatible|defensible|sensible|logical|justified|convincing|compelling|apt)|correct\b|right(?=\s*(?:[.,;:!)]|$|answer|choice|option|one|here|call))|true\b|best(?=\s*(?:[.,;:!)]|$|answer|choice|option|one|fit|match)))`;
const COMMIT_AFTER = new RegExp(
  String.raw`^[\s*_)\]}"'”’]*(?:\([^()]{0,80}\)[\s*_]*)?(?:` +
    // "is (clearly) (the) correct / the answer / my choice / preferred / what I'd pick / what's shown"
    String.raw`[,:]?\s*(?:is|are|was|seems(?:\s+to\s+be)?|appears(?:\s+to\s+be)?|looks|would\s+be|remains|stays|being)\s+(?:(?:definitely|clearly|probably|likely|still|indeed|therefore|thus|then|so|certainly|really|now|also|by\s+far)\s+)*(?:the\s+|a\s+|an\s+)?(?:${EVALUATION}|answer\b|appropriate\b|accurate\b|preferred\b|favou?red\b|my\s+(?:final\s+)?(?:answer|choice|pick|selection|vote|guess|call)|final\s+answer|one(?=\s*(?:[.,;:!)]|$))|(?:one|option|choice|answer|letter)\s+(?:that\s+)?i(?:'d|\s+would|\s+will|'ll)?\s+(?:go|choose|pick|select|say|prefer)|what\s+i(?:'d|\s+would|\s+will|'ll)?\s+(?:go|choose|pick|select|say)|what(?:'s|\s+is)\s+(?:shown|seen|present|depicted|visible|demonstrated))` +
    // "B: most likely", "C — correct", "A — Yes", "D: Consistent."
    String.raw`|(?:[:\-–—]\s*|\s)(?:(?:definitely|clearly|probably|by\s+far)\s+)?${EVALUATION}|[:\-–—]\s*(?:yes\b|consistent\b(?!\s+with)|fits\b|present\b)` +
    // "(making) C the right pick", "(leaves) D the only option", "B to be the right choice"
    String.raw`|\s+(?:to\s+be\s+)?the\s+(?:only|${EVALUATION}|right|correct|best|obvious|clear)\s+(?:answer|choice|pick|option|fit|match|one)(?!\s+(?:is|was|would|will|should|must|seems|appears|here\s+is)\b|\s*[:=])` +
    String.raw`|\s+(?:down\s+)?as\s+(?:the|my)\s+(?:final\s+)?(?:answer|choice|pick|selection)` +
    String.raw`|[,:]?\s*(?:best\s+|clearly\s+|most\s+closely\s+|also\s+)?(?:fits|matches)\b|\s*best\s+(?:fits|matches|describes|explains|answers|reflects|represents|captures|accounts)|\s*makes\s+(?:the\s+)?most\s+sense|\s*it\s+is\b|\s*gets\s+my\s+vote|\s*wins\b|\s*stands\b|\s*has\s+it\b|\s*for\s+sure|\s*is\s+what\b` +
    String.raw`|[^.!?\n]{0,80}?\b(?:that|it|this|which)(?:'s|\s+is)\s+(?:the\s+one|what)\s+i(?:'d|\s+would|'ll|\s+will)?\s+(?:choose|pick|select|go\s+with)` +
    String.raw`|\s*(?:✓|✔|✅|☑|←|<-+|<=+|⬅|👈)|\s*\(?(?:correct|right\s+answer|answer)\)?(?=\s*(?:$|[.!\n]))` +
    String.raw`|\s*(?:が|は|이|가)?\s*(?:最も|最适|最合适|正确|正確|正しい|正解|適切|对|對|입니다|정답|맞)` +
    String.raw`)`,
  'iu',
);

/** After a mention: it is set aside ("A is unlikely", "B: no", "C would show", "D ✗"). Not "B, not C" (that negates C). */
const REJECT_AFTER = new RegExp(
  String.raw`^[\s*_)\]}"'”’]*(?:\([^()]{0,80}\)[\s*_]*)?(?:` +
    String.raw`[,:.\-–—]?\s*(?:(?:is|are|was|seems|appears|would\s+be|looks|remains)\s+)?(?:(?:definitely|clearly|probably|also|much|far|very|less|even)\s+)*` +
    String.raw`(?:not\b(?!\s+(?:option\s+|choice\s+)?[(\[*_"']*[A-Da-d](?![\p{L}\p{N}]))|incorrect|wrong|unlikely|less\s+likely|improbable|implausible|ruled\s+out|out\b(?!\s+of)|excluded|eliminated|inconsistent|false|doesn't|does\s+not|don't|can't|cannot|isn't|wouldn't|would(?:\s+not)?\s+(?!be\s+(?:my|the\s+(?:answer|best|correct|right|most))|explain)\p{L}+|could\s+(?:be|also)|might|may\b|fails?|lacks?|too\b|(?:is|are)\s+(?:a\s+)?(?:consideration|possibility|differential|distractor|mimic)|✗|✘|❌|×)` +
    // a verdict: "B: no", "C — No;"
    String.raw`|[:\-–—]\s*(?:no|nope|none|absent|negative)\b` +
    String.raw`)`,
  'iu',
);

/**
 * Before a mention: it is set aside ("not A", "rather than B", "rule out D"). Comparisons ("B over C", "more
 * likely than D") set aside option LETTERS only: before an option's words, "over" and "than" are about anatomy
 * ("projects over the right atrium").
 */
const REJECT_WORDS = String.raw`\bnot|\bno|n't|\bnever|\bnor|\bneither|\bexclud(?:e|es|ed|ing)|\brul(?:e|es|ed|ing)\s+out|\brather\s+than|\binstead\s+of|\belimin\w*|\bexcept|\bwithout|\bunlike|\bother\s+than|\bdiscard\w*|\breject\w*|\bdismiss\w*`;
const COMPARE_WORDS = String.raw`\bover|\bthan|\bagainst|\bversus|\bvs\.?|\bbesides|\bapart\s+from|\bbeyond`;
const REJECT_BEFORE_TEXT = new RegExp(String.raw`(?:${REJECT_WORDS})(?:\s+|[*_(\["'“]|option|choice|the|an?|letter){0,4}$`, 'iu');
const REJECT_BEFORE_LETTER = new RegExp(String.raw`(?:${REJECT_WORDS}|${COMPARE_WORDS})(?:\s+|[*_(\["'“]|option|choice|the|letter){0,4}$`, 'iu');

/** Before a mention: it is only wondered about, supposed or recalled ("could it be C", "if B", "I initially thought A"). */
const TENTATIVE_BEFORE = new RegExp(
  String.raw`(?:\babout|\bif|\bwhether|\bthought|\binitially|\bat\s+first|\bconsidered|\bconsidering|\bmaybe|\bperhaps|\bpossibly|\bcould\s+(?:it\s+)?(?:also\s+)?be|\bmight\s+(?:it\s+)?(?:also\s+)?be|\bmay\s+(?:also\s+)?be|\bis\s+it|\bwas\s+going\s+to\s+(?:say|pick|choose|go\s+with)|\bpuede\s+ser|\bpodr[ií]a\s+ser|\bpode\s+ser|\bpoderia\s+ser|\bpeut\s+être|\bpourrait\s+être|\bkann\s+sein|\bk[öo]nnte|\bpotrebbe\s+essere|\bpuò\s+essere|может\s+быть|可能是|也许是?|或许是?)(?:\s+|[*_(\["'“]|option|choice|the|letter){0,4}$`,
  'iu',
);

/** True when the text after a mention commits to it. */
export function commitsAfter(textAfter: string): boolean {
  return COMMIT_AFTER.test(textAfter);
}

/** True when the text after a mention sets it aside. */
export function rejectsAfter(textAfter: string): boolean {
  return REJECT_AFTER.test(textAfter);
}

/** True when the text before a mention sets it aside; `words`: the mention is an option's text, not its letter. */
export function rejectsBefore(textBefore: string, words = false): boolean {
  return (words ? REJECT_BEFORE_TEXT : REJECT_BEFORE_LETTER).test(textBefore);
}

/** True when the text before a mention only wonders about it. */
export function tentativeBefore(textBefore: string): boolean {
  return TENTATIVE_BEFORE.test(textBefore);
}

/** A mention followed by a contrast with another option chooses it ("C rather than A", "B, not D", "D over B"). */
export const CONTRAST_AFTER = /^[\s*_)\]}"'”’]*(?:\([^()]{0,80}\)[\s*_]*)?,?\s*(?:rather\s+than|instead\s+of|over|more\s+than|and\s+not|not|but\s+not)\s+(?:option\s+|choice\s+)?[(\[*_"']*[A-Da-d](?![\p{L}\p{N}])/iu;

/** Joins two mentions into one statement: `or` makes a hedge, `and` (or a list) several answers. */
export const COORDINATION = /^[\s*_)\]}"'”’.]*(?:(?:,\s*)?(?:(or|either|\/|或者?|还是|oder|ou|o|или|か|또는|이나|vs\.?)|(and|&|\+|plus|as\s+well\s+as|y|e|und|et|и|和|与|及|と|,|;))\s*)(?:also\s+|maybe\s+|perhaps\s+|possibly\s+|even\s+|potentially\s+)?(?:option\s+|choice\s+)?[(\[*_"'“]*$/iu;

/** Markers that a statement hedges even where no `or` joins two options ("I can't decide", "equally likely"). */
export const HEDGE_MARKER = /\b(?:(?:either|entweder)\s+(?:option\s+|choice\s+)?[(\[*_"']*[A-Da-d](?![\p{L}\p{N}])|equally|can(?:'|no)t\s+(?:decide|choose|tell|distinguish|differentiate|be\s+sure)|cannot\s+(?:decide|choose|tell|distinguish|differentiate|be\s+sure)|torn\s+between|not\s+(?:sure|certain)\s+(?:if|whether|which)|unsure|undecided|hard\s+to\s+(?:say|choose|decide|tell)|toss-?up|coin\s*flip|50\s*[/-]\s*50|one\s+of\s+(?:the\s+)?(?:two|these)|both\s+(?:are\s+)?(?:possible|plausible|likely))\b/iu;

/**
 * Markers that the model revises what it said before ("wait", "actually", "on second thought"): a later
 * conclusion then replaces an earlier explicit answer.
 */
export const REVISION_MARKER = /\b(?:wait|actually|revised|updated|amended|on\s+(?:second|further)\s+(?:thought|look|review|reflection|inspection)|on\s+reflection|looking\s+(?:again|more\s+closely|closer)|re-?examin\w*|re-?consider\w*|re-?evaluat\w*|re-?assess\w*|correction|i\s+was\s+wrong|mistake|scratch\s+that|change\s+(?:my|the)\s+answer|revis\w*|hmm+,?\s+no|no,?\s+wait|let\s+me\s+(?:re|double)|double-?check\w*)\b/i;

/** Phrases that refuse to answer. */
export const REFUSAL = /\b(?:I\s*(?:am|'m|’m)\s+(?:not\s+able|unable)|I\s+(?:can(?:not|'t|’t)|could\s+not|couldn't|won't|am\s+not\s+able\s+to)\s+(?:determine|answer|provide|tell|say|see|view|access|interpret|assess|make|help|assist|analy[sz]e|evaluate|read|open|identify|give|offer|diagnose|be\s+certain)|unable\s+to\s+(?:determine|answer|view|see|access|interpret|assess|analy[sz]e|evaluate|provide|identify|give)|cannot\s+be\s+determined\s+(?:from|with|without)|not\s+possible\s+to\s+(?:determine|answer|tell|say)|as\s+an\s+AI|(?:no|not\s+an?)\s+image\s+(?:was|is|has\s+been)\s+(?:provided|attached|shared|uploaded|included|loaded|visible)|(?:please\s+)?consult\s+(?:a|your)\s+(?:radiologist|physician|doctor|healthcare)|I\s+(?:do\s+not|don't)\s+(?:see|have)\s+(?:an?|the|any)\s+image|image\s+(?:did|does)\s*n[o']t\s+(?:load|come\s+through|appear))\b/i;

/** "None of the above" and "all of the above" as an answer (an option may say so: then it is that option). */
export const NONE_OR_ALL = /\b(?:(none)\s+of\s+(?:the\s+)?(?:above|these|them|those|options|choices|answers|given\s+(?:options|choices))|(?:no|neither)\s+(?:option|answer|choice)\s+(?:is|fits|matches|applies|seems)|(all)\s+of\s+the\s+(?:above|options|choices))\b/i;

/** An answer cue left dangling at the end of an output: it was cut off before the answer. */
export const DANGLING_CUE = /(?:answer|final\s+answer|answer\s+is|choice\s+is|option\s+is|I\s+(?:choose|select|pick|would\s+choose)|\\boxed\{|<answer>)[\s*_:"'(\[{]*$/i;

/** A negation earlier in the clause of an evidence word ("no pleural line to suggest …", "without features that favour …"). */
export const NEGATED_CLAUSE = /\b(?:no|not|without|nor|never|absence|absent|lack\w*|n't)\b[^.;:!?\n]*$/i;

/** Before a mention that ends its sentence: an appositive that concludes ("… is rotation — **A**.", "…: option D."). */
export const APPOSITIVE_BEFORE = /(?:[—–:→=]|\s-)\s*(?:option\s+|choice\s+|answer\s+)?[*_(\["'“]*$/i;
/** After a mention: nothing but the end of its sentence. */
export const ENDS_STATEMENT = /^[\s*_)\]"'”’.!]*$/;
