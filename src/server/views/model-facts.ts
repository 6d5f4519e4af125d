import type { ModelCard } from '../../board/model-card.js';
import { html, safeLink, type Html } from './html.js';

/** A definition list row, with "—" for what was not given. */
export function fact(term: string, value: Html | string | number | null | undefined): Html {
  return html`<dt>${term}</dt><dd>${value === null || value === undefined || value === '' ? '—' : value}</dd>`;
}

/** yes, no, or "—" when the submitter did not say (null, or left out of a card). */
export function openWeightsText(open: boolean | null | undefined): string {
  return open === true ? 'yes' : open === false ? 'no' : '—';
}

/** What a submitter said about the model, as rows of an entry's card (question and report-generation boards alike). */
export function modelCardFacts(m: ModelCard): Html {
  return html`${fact('Organisation', m.organisation)}
${fact('Model URL', m.url ? safeLink(m.url, m.url) : null)}${fact('Paper', m.paper ? safeLink(m.paper, m.paper) : null)}
${fact('Open weights', openWeightsText(m.openWeights))}${fact('Parameters', m.parametersBillion !== undefined ? `${m.parametersBillion} billion` : null)}
${fact('Release date', m.date)}`;
}
