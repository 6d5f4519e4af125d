/// <reference lib="dom" />
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { VIEWER_CSP_ADDITIONS, registerViewerAssets } from '../src/server/viewer/bundle.js';
import { rawPixels, sendRawPixels } from '../src/server/viewer/raw-pixels.js';
// (also brings in the declaration of window.cxrViewers)
import type { ViewerState } from '../src/server/viewer/viewer-entry.js';
import { keepScreenshot, launchChromium, seriousViolations } from './helpers/browser.js';

// The board's policy (src/server/create-app.ts) plus whatever the viewer declares it needs.
const CSP = `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'${VIEWER_CSP_ADDITIONS ? `; ${VIEWER_CSP_ADDITIONS}` : ''}`;

/** 8-bit: a horizontal ramp 0..255. */
async function png8(width = 256, height = 192): Promise<Buffer> {
  const px = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) px[y * width + x] = Math.round((x * 255) / (width - 1));
  return sharp(px, { raw: { width, height, channels: 1 } }).toColourspace('b-w').png().toBuffer();
}

/**
 * 16-bit, 512×512: the top half ramps over the whole 0..65535 range; the bottom half is three bands at 40050, 40100
 * and 40150 — values an 8-bit squash maps to one grey (all ≈156), which a window of 40000..40200 separates.
 */
const BANDS = [40050, 40100, 40150];
async function png16(size = 512): Promise<Buffer> {
  const px = new Uint16Array(size * size);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      px[y * size + x] = y < size / 2 ? Math.round((x * 65535) / (size - 1)) : BANDS[Math.min(2, Math.floor((x * 3) / size))]!;
    }
  }
  return sharp(px, { raw: { width: size, height: size, channels: 1 } }).toColourspace('grey16').png().toBuffer();
}

test('rawPixels: an 8-bit grey PNG comes back as its 8-bit samples', async () => {
  const out = await rawPixels(await png8(256, 2));
  assert.deepEqual({ width: out.width, height: out.height, bits: out.bits, bytes: out.body.length }, { width: 256, height: 2, bits: 8, bytes: 512 });
  assert.deepEqual([...out.body.subarray(0, 4)], [0, 1, 2, 3]);
  assert.equal(out.body[255], 255);
});

test('rawPixels: a 16-bit grey PNG keeps every bit, little-endian', async () => {
  const out = await rawPixels(await png16(8));
  assert.deepEqual({ width: out.width, height: out.height, bits: out.bits, bytes: out.body.length }, { width: 8, height: 8, bits: 16, bytes: 128 });
  const at = (x: number, y: number) => out.body.readUInt16LE((y * 8 + x) * 2);
  assert.equal(at(0, 0), 0);
  assert.equal(at(7, 0), 65535);
  assert.equal(at(3, 0), Math.round((3 * 65535) / 7));
  assert.deepEqual([at(0, 7), at(4, 7), at(7, 7)], BANDS, 'values 50 apart survive (an 8-bit squash would merge them)');
});

test('rawPixels: RGB and RGBA input become one grey channel (16-bit stays 16-bit)', async () => {
  const rgb = await sharp({ create: { width: 3, height: 2, channels: 3, background: { r: 90, g: 90, b: 90 } } }).png().toBuffer();
  const grey = await rawPixels(rgb);
  assert.deepEqual({ bits: grey.bits, bytes: grey.body.length }, { bits: 8, bytes: 6 });
  assert.ok([...grey.body].every((v) => v === 90), `grey input in RGB keeps its value: ${[...grey.body]}`);
  const colour = await rawPixels(await sharp({ create: { width: 2, height: 1, channels: 3, background: { r: 255, g: 0, b: 0 } } }).png().toBuffer());
  assert.equal(colour.body.length, 2, 'colour is reduced to one channel');
  const rgba16 = new Uint16Array([1000, 1000, 1000, 65535, 40100, 40100, 40100, 65535]);
  const png = await sharp(rgba16, { raw: { width: 2, height: 1, channels: 4 } }).toColourspace('rgb16').png().toBuffer();
  const wide = await rawPixels(png);
  assert.equal(wide.bits, 16);
  assert.deepEqual([wide.body.readUInt16LE(0), wide.body.readUInt16LE(2)], [1000, 40100]);
});

test('sendRawPixels and the viewer assets: headers, caching, 304, compression', { timeout: 30_000 }, async () => {
  const app = Fastify();
  registerViewerAssets(app);
  const pixels = await rawPixels(await png8(4, 2));
  app.get('/raw', async (_request, reply) => sendRawPixels(reply, pixels));
  try {
    const raw = await app.inject('/raw');
    assert.equal(raw.headers['content-type'], 'application/octet-stream');
    assert.equal(raw.headers['cache-control'], 'private, max-age=3600');
    assert.deepEqual([raw.headers['x-image-width'], raw.headers['x-image-height'], raw.headers['x-image-bits']], ['4', '2', '8']);
    assert.equal(raw.rawPayload.length, 8);
    const css = await app.inject('/static/viewer.css');
    assert.match(String(css.headers['content-type']), /^text\/css/);
    const again = await app.inject({ url: '/static/viewer.css', headers: { 'if-none-match': String(css.headers.etag) } });
    assert.equal(again.statusCode, 304);
    const plain = await app.inject({ url: '/static/viewer.js', headers: { 'accept-encoding': 'identity' } });
    assert.equal(plain.statusCode, 200);
    assert.match(String(plain.headers['content-type']), /^application\/javascript/);
    assert.equal(plain.headers['content-encoding'], undefined);
    const br = await app.inject({ url: '/static/viewer.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain.payload, 'brotli is the same script');
    assert.ok(br.rawPayload.length < plain.rawPayload.length / 3, `compressed ${br.rawPayload.length} of ${plain.rawPayload.length}`);
    const cached = await app.inject({ url: '/static/viewer.js', headers: { 'if-none-match': String(plain.headers.etag) } });
    assert.equal(cached.statusCode, 304);
  } finally {
    await app.close();
  }
});

interface Browsed {
  app: FastifyInstance;
  base: string;
}

let server: Browsed;
before(async () => {
  const app = Fastify();
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('content-security-policy', CSP).header('x-content-type-options', 'nosniff');
  });
  registerViewerAssets(app);
  const images = { '8': await rawPixels(await png8()), '16': await rawPixels(await png16()) };
  app.get<{ Params: { bits: string } }>('/images/:bits', async (request, reply) => {
    const image = images[request.params.bits as keyof typeof images];
    return image ? sendRawPixels(reply, image) : reply.code(404).send('no such image');
  });
  app.get('/', async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Viewer</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/static/viewer.css"></head>
<body><main><section aria-label="Images">
<figure class="cxr-view" data-src="/images/8" data-label="PA"><figcaption>PA</figcaption></figure>
<figure class="cxr-view" data-src="/images/16" data-label="Lateral"><figcaption>Lateral</figcaption></figure>
</section><label>Note <input id="note"></label></main><script type="module" src="/static/viewer.js"></script></body></html>`),
  );
  app.get('/broken', async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Viewer</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/viewer.css"></head><body><div class="cxr-views">
<figure class="cxr-view" data-src="/images/missing" data-label="PA"><figcaption>PA</figcaption></figure>
<figure class="cxr-view" data-src="/images/8" data-label="Lateral"><figcaption>Lateral</figcaption></figure>
</div><script type="module" src="/static/viewer.js"></script></body></html>`),
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  server = { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
});
after(() => server?.app.close());

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

const state = (page: Page, i: number) => page.evaluate((n) => window.cxrViewers[n]!.getState(), i);

/** Mean RGB (0..255) of a 5×5 patch of a view's canvas around fractional image coordinates (fx, fy), assuming the fitted, centred image. */
async function sample(page: Page, view: number, image: { width: number; height: number }, fx: number, fy: number): Promise<number[]> {
  return page.evaluate(({ view, image, fx, fy }) => {
    const canvas = document.querySelectorAll<HTMLElement>('.cxr-view')[view]!.querySelector('canvas')!;
    const scale = Math.min(canvas.width / image.width, canvas.height / image.height);
    const x = Math.round((canvas.width - image.width * scale) / 2 + fx * image.width * scale);
    const y = Math.round((canvas.height - image.height * scale) / 2 + fy * image.height * scale);
    const data = canvas.getContext('2d')!.getImageData(x - 2, y - 2, 5, 5).data;
    const mean = [0, 0, 0];
    for (let i = 0; i < data.length; i += 4) for (let c = 0; c < 3; c++) mean[c]! += data[i + c]! / 25;
    return mean.map(Math.round);
  }, { view, image, fx, fy });
}

const close = (a: ViewerState, b: ViewerState) =>
  Math.abs(a.zoom - b.zoom) < 1e-6 && Math.abs(a.pan[0] - b.pan[0]) < 1e-6 && Math.abs(a.pan[1] - b.pan[1]) < 1e-6 &&
  a.windowCenter === b.windowCenter && a.windowWidth === b.windowWidth && a.inverted === b.inverted;

// By default this browser (--disable-gpu: WebGL only through SwiftShader) gets the CPU path; the second run forces
// cornerstone's WebGL path, which readers with a real GPU use.
for (const mode of ['auto', 'gpu'] as const) {
  test(`viewer in Chromium (${mode} renderer): 8- and 16-bit views, invert, 16-bit window, zoom, reset, keys, layout — no CSP violations`, { timeout: 60_000 }, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' || /content security policy/i.test(m.text())) errors.push(m.text());
    });
    await page.addInitScript((forced) => {
      if (forced) window.cxrViewerRenderer = forced;
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
    }, mode === 'gpu' ? mode : undefined);
    try {
      await viewerScenario(page, mode);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
}

test('viewer in Chromium: an image that cannot be loaded says so; the other views still work', { timeout: 30_000 }, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource: .* 404/.test(m.text())) errors.push(m.text());
  });
  try {
    await page.goto(`${server.base}/broken`);
    await page.waitForSelector('.cxr-view[data-error="true"] [role="alert"]');
    assert.match((await page.textContent('[role="alert"]')) ?? '', /could not be shown \(404/);
    await page.waitForSelector('.cxr-view[data-ready="true"]');
    const viewers = await page.evaluate(() => Array.from(window.cxrViewers, (v) => v?.figure.dataset.label ?? null));
    assert.deepEqual(viewers, [null, 'Lateral'], 'cxrViewers stays index-aligned with the figures (a hole for the failed one)');
    await page.keyboard.press('i');
    assert.equal((await state(page, 1)).inverted, true, 'shortcuts reach the working view');
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});

async function viewerScenario(page: Page, mode: 'auto' | 'gpu'): Promise<void> {
  const started = performance.now();
  await page.goto(server.base);
  await page.waitForFunction(() => document.querySelectorAll('.cxr-view[data-ready="true"]').length === 2, undefined, { timeout: 20_000 });
  const webgl = await page.evaluate(() => !!document.createElement('canvas').getContext('webgl2'));
  const renderer = await page.evaluate(() => Array.from(document.querySelectorAll<HTMLElement>('.cxr-view')).map((f) => f.dataset.renderer));
  assert.deepEqual(renderer, Array(2).fill(mode === 'gpu' && webgl ? 'gpu' : 'cpu'));
  console.log(`# ${mode}: both views ready in ${Math.round(performance.now() - started)} ms (${renderer[0]} rendering)`);

  // Toolbars: real buttons with accessible names.
  for (const name of ['Zoom in', 'Zoom out', 'Fit', 'Reset', 'Invert', 'Full range', 'Auto', 'Lung', 'Bone']) {
    assert.equal(await page.getByRole('button', { name, exact: true }).count(), 2, `two "${name}" buttons`);
  }

  // Invert (8-bit view): the state flips and the ramp's dark end turns light.
  const eight = { width: 256, height: 192 };
  const initial8 = await state(page, 0);
  assert.equal(initial8.inverted, false);
  const darkBefore = await sample(page, 0, eight, 0.1, 0.5);
  await page.getByRole('toolbar', { name: 'PA image tools' }).getByRole('button', { name: 'Invert' }).click();
  assert.equal((await state(page, 0)).inverted, true);
  await page.waitForFunction(() => document.querySelector('.cxr-view [aria-pressed="true"]') !== null);
  const darkAfter = await sample(page, 0, eight, 0.1, 0.5);
  assert.ok(darkBefore[0]! < 60 && darkAfter[0]! > 195, `inverted pixels: ${darkBefore} → ${darkAfter}`);

  // 16 bits are used: a 200-wide window at 40000 separates 40050 / 40100 / 40150 into dark / mid / light grey.
  const sixteen = { width: 512, height: 512 };
  const initial16 = await state(page, 1);
  assert.deepEqual([initial16.windowCenter, initial16.windowWidth], [65535 / 2, 65535], 'starts on the full range');
  const flat = await Promise.all([1 / 6, 3 / 6, 5 / 6].map((fx) => sample(page, 1, sixteen, fx, 0.75)));
  assert.ok(Math.max(...flat.map((p) => p[0]!)) - Math.min(...flat.map((p) => p[0]!)) <= 2, `full range: bands look alike ${JSON.stringify(flat)}`);
  await page.evaluate(() => window.cxrViewers[1]!.setWindow(40100, 200));
  assert.deepEqual([(await state(page, 1)).windowCenter, (await state(page, 1)).windowWidth], [40100, 200]);
  await page.waitForTimeout(100); // the engine draws on the next animation frame
  const bands = await Promise.all([1 / 6, 3 / 6, 5 / 6].map((fx) => sample(page, 1, sixteen, fx, 0.75)));
  const grey = bands.map((p) => p[0]!);
  assert.ok(Math.abs(grey[1]! - 128) <= 8, `40100 is mid grey in 40000..40200: ${grey}`);
  assert.ok(Math.abs(grey[0]! - 64) <= 10 && Math.abs(grey[2]! - 191) <= 10, `40050 and 40150 at a quarter and three quarters: ${grey}`);
  const ramp = await sample(page, 1, sixteen, 0.25, 0.25);
  assert.ok(ramp[0]! < 5, `the ramp below the window is black: ${ramp}`);

  // Zoom in, mouse window/level, pan and wheel zoom, then Reset brings everything back.
  const tools16 = page.getByRole('toolbar', { name: 'Lateral image tools' });
  await tools16.getByRole('button', { name: 'Zoom in' }).click();
  const zoomed = await state(page, 1);
  assert.ok(zoomed.zoom > initial16.zoom, 'Zoom in increases zoom');
  const box = (await page.locator('.cxr-viewport').nth(1).boundingBox())!;
  const drag = async (button: 'left' | 'right', modifiers: Array<'Control'> = []) => {
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (const m of modifiers) await page.keyboard.down(m);
    await page.mouse.down({ button });
    for (let step = 1; step <= 4; step++) await page.mouse.move(box.x + box.width / 2 + step * 15, box.y + box.height / 2 + step * 10);
    await page.mouse.up({ button });
    for (const m of modifiers) await page.keyboard.up(m);
  };
  await drag('left');
  const levelled = await state(page, 1);
  assert.ok(levelled.windowCenter !== zoomed.windowCenter || levelled.windowWidth !== zoomed.windowWidth, 'left-drag changes window/level');
  assert.deepEqual([levelled.zoom, levelled.pan], [zoomed.zoom, zoomed.pan], 'left-drag does not move the image');
  await drag('right');
  const panned = await state(page, 1);
  assert.ok(panned.pan[0] > zoomed.pan[0] + 20 && panned.pan[1] > zoomed.pan[1] + 10, `right-drag pans: ${panned.pan}`);
  assert.deepEqual([panned.windowCenter, panned.windowWidth], [levelled.windowCenter, levelled.windowWidth], 'right-drag leaves the window');
  await drag('left', ['Control']);
  const ctrlPanned = await state(page, 1);
  assert.ok(ctrlPanned.pan[0] > panned.pan[0] + 20, `ctrl-drag pans: ${ctrlPanned.pan}`);
  assert.equal(ctrlPanned.windowWidth, levelled.windowWidth, 'ctrl-drag leaves the window');
  await page.mouse.wheel(0, -300);
  await page.waitForTimeout(50);
  assert.ok((await state(page, 1)).zoom > zoomed.zoom, 'wheel up zooms in');
  await tools16.getByRole('button', { name: 'Fit' }).click();
  const fitted = await state(page, 1);
  assert.deepEqual([fitted.zoom, fitted.pan, fitted.windowWidth], [initial16.zoom, initial16.pan, levelled.windowWidth], 'Fit resets the geometry and keeps the window');
  await tools16.getByRole('button', { name: 'Reset' }).click();
  assert.ok(close(await state(page, 1), initial16), `reset: ${JSON.stringify(await state(page, 1))} vs ${JSON.stringify(initial16)}`);

  // Keys: the page's answer keys pass through untouched, even with the pointer on (and a click in) the image.
  await page.evaluate(() => {
    const seen: Array<{ key: string; prevented: boolean }> = [];
    (window as unknown as { seen: typeof seen }).seen = seen;
    document.addEventListener('keydown', (e) => seen.push({ key: e.key, prevented: e.defaultPrevented }));
  });
  await page.locator('.cxr-viewport').nth(1).click();
  for (const key of ['a', 'A', 'b', '1', 'n', 'p', 'Enter', 'ArrowLeft', 'ArrowRight']) await page.keyboard.press(key);
  const seen = await page.evaluate(() => (window as unknown as { seen: Array<{ key: string; prevented: boolean }> }).seen);
  assert.deepEqual(seen.map((s) => s.key), ['a', 'A', 'b', '1', 'n', 'p', 'Enter', 'ArrowLeft', 'ArrowRight']);
  assert.ok(seen.every((s) => !s.prevented), `no key was default-prevented: ${JSON.stringify(seen)}`);
  assert.ok(close(await state(page, 1), initial16), 'answer keys changed nothing in the viewer');
  // The viewer's own keys act on the view last pointed at; typed into a field they are just text.
  await page.keyboard.press('i');
  assert.equal((await state(page, 1)).inverted, true, 'I inverts');
  await page.keyboard.press('+');
  assert.ok((await state(page, 1)).zoom > initial16.zoom, '+ zooms in');
  await page.keyboard.press('r');
  assert.ok(close(await state(page, 1), initial16), 'R resets');
  await page.fill('#note', 'fir');
  assert.ok(close(await state(page, 1), initial16), 'typing in a field leaves the viewer alone');

  // Layout: side by side at 1280×720, about 60vh tall; stacked at 390 px wide.
  const boxes = async () => page.locator('.cxr-viewport').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as DOMRect));
  const wide = await boxes();
  assert.equal(Math.round(wide[0]!.top), Math.round(wide[1]!.top), 'side by side');
  assert.ok(wide[0]!.width > 500 && Math.abs(wide[0]!.width - wide[1]!.width) < 2, `equal shares: ${wide.map((b) => b.width)}`);
  assert.ok(Math.abs(wide[0]!.height - 432) < 2, `60vh: ${wide[0]!.height}`);
  await keepScreenshot(page, `viewer-${mode}-1280`);
  assert.deepEqual(await seriousViolations(page), [], 'axe: no serious or critical accessibility problems');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(150);
  const narrow = await boxes();
  assert.ok(narrow[1]!.top >= narrow[0]!.bottom, 'stacked on a phone');
  assert.ok(narrow[0]!.width > 300 && narrow[0]!.right <= 390, `full width: ${narrow[0]!.width}`);
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, 'no sideways scrolling');
  await keepScreenshot(page, `viewer-${mode}-390`);

}
