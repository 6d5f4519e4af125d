import type { TopLevelSpec } from 'vega-lite';
import { FEW_KAPPA_ITEMS } from '../score/agreement-matrix.js';

/**
 * Renders a vega-lite spec to an SVG string (no browser, no canvas): charts are inlined in the HTML report.
 * vega is loaded on first use: it is large, and every other command (eval above all) should not carry it.
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const [vega, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

type Bar = { run: string; group: string; accuracy: number; lo: number; hi: number };

/** The layers of one accuracy panel: bars, their 95% interval, and the value written above (so a 0% bar shows). */
function barLayers(runs: string[]) {
  const x = { field: 'run', type: 'nominal', axis: null, sort: runs, scale: { paddingInner: 0.15 } };
  const y = { field: 'accuracy', type: 'quantitative', title: 'accuracy (%)', scale: { domain: [0, 100] } };
  return {
    encoding: { x, color: { field: 'run', type: 'nominal', title: null, sort: runs, legend: { orient: 'bottom', direction: 'vertical', labelLimit: 0 } } },
    layer: [
      { mark: 'bar', encoding: { y } },
      // A bar of 0% has no height: a tick at its value keeps it visible.
      { mark: { type: 'tick', thickness: 2 }, encoding: { y } },
      { mark: { type: 'rule', color: 'black' }, encoding: { y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' } } },
      { mark: { type: 'text', dy: -6, fontSize: 9, color: '#333' }, encoding: { y: { field: 'hi', type: 'quantitative' }, text: { field: 'accuracy', type: 'quantitative', format: '.1f' } } },
    ],
  };
}

/**
 * Figure 2-style: accuracy per task for each run, one panel per task in the order given (the paper's), with 95%
 * interval whiskers over each run's own bar and full task names (wrapped at spaces).
 */
export function accuracyBarSpec(rows: Bar[], groups: readonly string[] = [...new Set(rows.map((r) => r.group))]): TopLevelSpec {
  const runs = [...new Set(rows.map((r) => r.run))];
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values: rows.map((r) => ({ ...r, accuracy: 100 * r.accuracy, lo: 100 * r.lo, hi: 100 * r.hi })) },
    facet: { column: { field: 'group', type: 'nominal', sort: [...groups], title: null, header: { labelExpr: "split(datum.label, ' ')", labelOrient: 'bottom', labelFontSize: 11 } } },
    spec: { width: Math.max(60, 22 * runs.length), height: 240, ...barLayers(runs) },
  } as TopLevelSpec;
}

/** ReXrank overall (the mean of the task accuracies) per run, on a panel of its own: it is not a sixth task. */
export function overallBarSpec(rows: Omit<Bar, 'group'>[]): TopLevelSpec {
  const runs = rows.map((r) => r.run);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: 'ReXrank overall', fontSize: 12 },
    data: { values: rows.map((r) => ({ ...r, accuracy: 100 * r.accuracy, lo: 100 * r.lo, hi: 100 * r.hi })) },
    width: Math.max(80, 28 * runs.length),
    height: 240,
    ...barLayers(runs),
  } as TopLevelSpec;
}

/** The fill of a kappa cell that is undefined or rests on too few items: grey, as the captions say. */
export const GREYED_CELL = '#e5e7eb';

/**
 * Figure 5-style: pairwise Cohen's kappa between raters as a heatmap with the values written in. An undefined
 * kappa (null) reads "—"; a cell resting on fewer than `fewBelow` items (by `pairN`) or undefined is grey, not
 * coloured by its value, so a kappa on a handful of items does not look like a finding.
 */
export function kappaHeatmapSpec(names: string[], matrix: readonly (readonly (number | null)[])[], pairN?: readonly (readonly number[])[], fewBelow = FEW_KAPPA_ITEMS): TopLevelSpec {
  const values = names.flatMap((a, i) => names.map((b, j) => {
    const kappa = matrix[i]![j] ?? null;
    const n = pairN?.[i]?.[j] ?? null;
    return { a, b, kappa: kappa === null ? null : Number(kappa.toFixed(2)), label: kappa === null ? '—' : kappa.toFixed(2), n, grey: kappa === null || (n !== null && n < fewBelow) };
  }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 40 * names.length + 40,
    height: 40 * names.length + 40,
    data: { values },
    // Names whole (vega cuts labels past 180 px with "…"): two raters whose names begin alike stay told apart.
    encoding: { x: { field: 'b', type: 'nominal', title: null, sort: names, axis: { labelLimit: 0 } }, y: { field: 'a', type: 'nominal', title: null, sort: names, axis: { labelLimit: 0 } } },
    layer: [
      { mark: { type: 'rect', invalid: null }, encoding: { color: { condition: { test: 'datum.grey', value: GREYED_CELL }, field: 'kappa', type: 'quantitative', scale: { domain: [-0.2, 1], scheme: 'blues' }, title: 'κ' } } },
      { mark: { type: 'text', fontSize: 11 }, encoding: { text: { field: 'label', type: 'nominal' }, color: { condition: { test: 'datum.grey', value: '#4b5563' }, value: 'black' } } },
    ],
  } as TopLevelSpec;
}
