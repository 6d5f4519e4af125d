import { html, type Html } from './html.js';

export interface Viewer {
  name: string;
  admin: boolean;
  csrf: string;
}

/**
 * The page frame: navigation, who is signed in, and the body. Works without JavaScript; a page that shows work
 * in progress (a submission being scored) refreshes itself every `refreshSeconds`. `people`: a reader-study or
 * review page (a reader by link is not offered sign-up, and the footer speaks of answers, not scores).
 */
export function layout(title: string, viewer: Viewer | null, body: Html, options: { refreshSeconds?: number; people?: boolean } = {}): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${options.refreshSeconds ? html`<meta http-equiv="refresh" content="${String(options.refreshSeconds)}">` : ''}
<title>${title} · cxrbench board</title><link rel="stylesheet" href="/static/board.css"><link rel="icon" href="data:,"></head>
<body><header><nav><a href="/" class="brand">cxrbench board</a>
${viewer ? html`<a href="/submissions">My submissions</a> <a href="/reviews">Reviews</a> <a href="/account">Account</a>${viewer.admin ? html` <a href="/studies">Studies</a> <a href="/admin">Admin</a>` : ''}
<form method="post" action="/logout" class="inline"><input type="hidden" name="_csrf" value="${viewer.csrf}"><button>Sign out ${viewer.name}</button></form>`
    : options.people ? '' : html`<a href="/login">Sign in</a> <a href="/signup">Sign up</a>`}
</nav></header><main>${body}</main>
<footer>${options.people ? 'Reader studies and reviews: answers are saved as you give them; only the host sees results before a study closes.' : html`Scores computed by cxrbench with the same extraction and scorer as the command line. Only aggregate results are shown. <a href="/api/docs">API</a>`}</footer></body></html>`.text;
}

/** Formats an accuracy as a percentage with one decimal. */
export function pct(value: number | null | undefined): string {
  return value === null || value === undefined || Number.isNaN(value) ? '—' : `${(value * 100).toFixed(1)}`;
}
