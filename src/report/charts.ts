import type { TopLevelSpec } from 'vega-lite';

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

/** Figure 2-style: accuracy per task (and overall) for each run, with 95% interval whiskers. */
export function accuracyBarSpec(rows: { run: string; group: string; accuracy: number; lo: number; hi: number }[]): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 560,
    height: 260,
    data: { values: rows.map((r) => ({ ...r, accuracy: 100 * r.accuracy, lo: 100 * r.lo, hi: 100 * r.hi })) },
    encoding: { x: { field: 'group', type: 'nominal', title: null, axis: { labelAngle: -20 } }, xOffset: { field: 'run' } },
    layer: [
      { mark: 'bar', encoding: { y: { field: 'accuracy', type: 'quantitative', title: 'accuracy (%)', scale: { domain: [0, 100] } }, color: { field: 'run', type: 'nominal', title: null, legend: { orient: 'bottom' } } } },
      { mark: { type: 'rule', color: 'black' }, encoding: { y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' } } },
    ],
  } as TopLevelSpec;
}

/** Figure 5-style: pairwise Cohen's kappa between raters as a heatmap with the values written in. */
export function kappaHeatmapSpec(names: string[], matrix: number[][]): TopLevelSpec {
  const values = names.flatMap((a, i) => names.map((b, j) => ({ a, b, kappa: Number((matrix[i]![j] ?? NaN).toFixed(2)) })));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 40 * names.length + 40,
    height: 40 * names.length + 40,
    data: { values },
    encoding: { x: { field: 'b', type: 'nominal', title: null, sort: names }, y: { field: 'a', type: 'nominal', title: null, sort: names } },
    layer: [
      { mark: 'rect', encoding: { color: { field: 'kappa', type: 'quantitative', scale: { domain: [-0.2, 1], scheme: 'blues' }, title: 'κ' } } },
      { mark: { type: 'text', fontSize: 11 }, encoding: { text: { field: 'kappa', type: 'quantitative', format: '.2f' } } },
    ],
  } as TopLevelSpec;
}
