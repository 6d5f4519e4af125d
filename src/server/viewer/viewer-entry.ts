/// <reference lib="dom" />
/**
 * The reader-study image viewer, bundled for the browser by bundle.ts (served as /static/viewer.js).
 * Mounts a Cornerstone3D stack viewport in every `<figure class="cxr-view" data-src=… data-label=…>`.
 * `data-src` answers with raw grey samples (see raw-pixels.ts), so 16-bit radiographs keep all their bits.
 * Keep this one file: bundle.ts keys its disk cache on this file's text.
 */
import {
  Enums, RenderingEngine, Settings, getRenderingCapabilities, getShouldUseCPURendering, imageLoader, init as initCore, setUseCPURendering, utilities,
  type Types,
} from '@cornerstonejs/core';
import { Enums as ToolEnums, PanTool, ToolGroupManager, WindowLevelTool, ZoomTool, addTool, init as initTools } from '@cornerstonejs/tools';

export interface ViewerState {
  zoom: number;
  pan: [number, number];
  /** The displayed window is [windowCenter − windowWidth/2, windowCenter + windowWidth/2] in stored pixel values. */
  windowCenter: number;
  windowWidth: number;
  inverted: boolean;
}

export interface CxrViewer {
  readonly figure: HTMLElement;
  getState(): ViewerState;
  invert(): void;
  reset(): void;
  fit(): void;
  zoomBy(factor: number): void;
  setWindow(center: number, width: number): void;
}

declare global {
  interface Window {
    cxrViewers: CxrViewer[];
    /** Set before the script runs to choose the backend (tests, troubleshooting); by default see start(). */
    cxrViewerRenderer?: 'cpu' | 'gpu';
  }
}

const ENGINE_ID = 'cxr-engine';
const TOOL_GROUP_ID = 'cxr-tools';
// Only these keys: the reading page answers with A–D, 1–4, N, P, Enter and the arrows.
const SHORTCUTS: Record<string, (v: CxrViewer) => void> = {
  i: (v) => v.invert(), r: (v) => v.reset(), f: (v) => v.fit(), '+': (v) => v.zoomBy(1.25), '-': (v) => v.zoomBy(0.8),
};

interface Raw {
  pixels: Uint8Array | Uint16Array;
  width: number;
  height: number;
}

async function fetchRaw(src: string): Promise<Raw> {
  const response = await fetch(src, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
  const width = Number(response.headers.get('x-image-width'));
  const height = Number(response.headers.get('x-image-height'));
  const bits = Number(response.headers.get('x-image-bits'));
  if (!(width > 0 && height > 0 && (bits === 8 || bits === 16))) throw new Error('missing or bad x-image-width/height/bits headers');
  const buffer = await response.arrayBuffer();
  if (buffer.byteLength !== width * height * (bits / 8)) throw new Error(`expected ${width * height * (bits / 8)} bytes, got ${buffer.byteLength}`);
  if (bits === 8) return { pixels: new Uint8Array(buffer), width, height };
  // The wire format is little-endian; typed arrays use the machine's order (little-endian on every browser platform in use).
  const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  const pixels = little ? new Uint16Array(buffer) : Uint16Array.from({ length: width * height }, (_, i) => new DataView(buffer).getUint16(i * 2, true));
  return { pixels, width, height };
}

/** Window presets from the image's own histogram: PNG radiographs carry no calibrated units (no HU), so fixed numbers would mean nothing. */
function presets(pixels: Uint8Array | Uint16Array): Array<{ name: string; title: string; range: [number, number] }> {
  const histogram = new Uint32Array(pixels instanceof Uint16Array ? 65536 : 256);
  for (const v of pixels) histogram[v]!++;
  const percentile = (p: number): number => {
    const target = Math.max(1, Math.ceil(p * pixels.length)); // so percentile(0) is the smallest value present
    let seen = 0;
    for (let v = 0; v < histogram.length; v++) if ((seen += histogram[v]!) >= target) return v;
    return histogram.length - 1;
  };
  const spread = (lo: number, hi: number): [number, number] => (hi > lo ? [lo, hi] : [lo - 0.5, lo + 0.5]);
  return [
    { name: 'Full range', title: 'Window over every stored value (minimum to maximum)', range: spread(percentile(0), percentile(1)) },
    { name: 'Auto', title: 'Window from the 0.5th to the 99.5th percentile of the image', range: spread(percentile(0.005), percentile(0.995)) },
    { name: 'Lung', title: 'Window on the darker part of the histogram (lung fields): 1st to 65th percentile', range: spread(percentile(0.01), percentile(0.65)) },
    { name: 'Bone', title: 'Window on the brighter part of the histogram (bone, mediastinum): 40th to 99.8th percentile', range: spread(percentile(0.4), percentile(0.998)) },
  ];
}

function button(label: string, title: string, onClick: () => void, shortcut?: string): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.title = shortcut ? `${title} (${shortcut})` : title;
  if (shortcut) b.setAttribute('aria-keyshortcuts', shortcut);
  b.addEventListener('click', onClick);
  return b;
}

let current: CxrViewer | undefined;

async function mount(figure: HTMLElement, index: number, engine: RenderingEngine): Promise<CxrViewer> {
  const label = figure.dataset.label ?? `Image ${index + 1}`;
  const toolbar = document.createElement('div');
  toolbar.className = 'cxr-toolbar';
  toolbar.setAttribute('role', 'toolbar');
  toolbar.setAttribute('aria-label', `${label} image tools`);
  const element = document.createElement('div');
  element.className = 'cxr-viewport';
  element.setAttribute('role', 'img');
  element.setAttribute('aria-label', `${label} radiograph. Drag to change window and level, right-drag or Ctrl-drag to pan, wheel to zoom.`);
  const readout = document.createElement('output');
  readout.className = 'cxr-readout';
  figure.prepend(toolbar, element);
  // Right-drag pans, so the browser's context menu must not open over the image.
  element.addEventListener('contextmenu', (e) => e.preventDefault());

  const viewportId = `cxr-${index}`;
  engine.enableElement({ element: element as HTMLDivElement, viewportId, type: Enums.ViewportType.STACK });
  // Cornerstone makes the element focusable and its key listener preventDefault()s every key pressed while it has
  // focus — that would swallow the page's answer keys. Without a tabindex it never receives key events.
  element.removeAttribute('tabindex');
  ToolGroupManager.getToolGroup(TOOL_GROUP_ID)!.addViewport(viewportId, ENGINE_ID);
  const viewport = engine.getViewport(viewportId) as Types.IStackViewport;

  const raw = await fetchRaw(figure.dataset.src ?? '');
  const windows = presets(raw.pixels);
  const initial = windows[0]!.range;
  const imageId = `cxr:${index}:${figure.dataset.src}`;
  const image = imageLoader.createAndCacheLocalImage(imageId, { scalarData: raw.pixels, dimensions: [raw.width, raw.height], spacing: [1, 1] });
  // The local image registers its pixel and plane modules; the stack viewport also reads the series' modality.
  utilities.genericMetadataProvider.add(imageId, { type: 'generalSeriesModule', metadata: { modality: 'DX' } });
  // A local image starts with a zero window; give it the full range so the first frame is already right
  // (in cornerstone's DICOM convention, which maps back to exactly [lower, upper]).
  Object.assign(image, utilities.windowLevel.toWindowLevel(initial[0], initial[1]));

  const render = () => viewport.render();
  /**
   * Zoom and pan measured on screen, because cornerstone's own getZoom/getPan differ by backend (the CPU path
   * gives canvas scale and image translation, WebGL a ratio to the initial camera). zoom: 1 = fitted to the view;
   * pan: where the image's centre is, in CSS pixels from the view's centre.
   */
  const geometry = (): Pick<ViewerState, 'zoom' | 'pan'> => {
    const { clientWidth: w, clientHeight: h } = element;
    const a = viewport.canvasToWorld([w / 2, h / 2]);
    const b = viewport.canvasToWorld([w / 2 + 100, h / 2]);
    const cssPerPixel = 100 / Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
    const fitted = Math.min(w / raw.width, h / raw.height);
    // The CPU path's world coordinates run along pixel edges, WebGL's through pixel centres.
    const half = getShouldUseCPURendering() ? 0 : 0.5;
    const [cx, cy] = viewport.worldToCanvas([raw.width / 2 - half, raw.height / 2 - half, 0]);
    const round = (v: number) => Math.round(v * 1e6) / 1e6; // float noise would make equal views compare unequal
    return { zoom: round(cssPerPixel / fitted), pan: [round(cx - w / 2), round(cy - h / 2)] };
  };
  const setRange = (lower: number, upper: number) => {
    viewport.setProperties({ voiRange: { lower, upper } });
    render();
  };
  const viewer: CxrViewer = {
    figure,
    getState() {
      const { voiRange, invert } = viewport.getProperties();
      const lower = voiRange?.lower ?? initial[0];
      const upper = voiRange?.upper ?? initial[1];
      return { ...geometry(), windowCenter: (lower + upper) / 2, windowWidth: upper - lower, inverted: !!invert };
    },
    invert() {
      viewport.setProperties({ invert: !viewport.getProperties().invert });
      render();
    },
    reset() {
      viewport.resetCamera();
      viewport.setProperties({ voiRange: { lower: initial[0], upper: initial[1] }, invert: false });
      render();
    },
    fit() {
      viewport.resetCamera({ resetPan: true, resetZoom: true });
      render();
    },
    zoomBy(factor) {
      viewport.setZoom(viewport.getZoom() * factor);
      render();
    },
    setWindow(center, width) {
      setRange(center - width / 2, center + width / 2);
    },
  };

  const invertButton = button('Invert', 'Invert grey levels', () => viewer.invert(), 'I');
  toolbar.append(
    button('Zoom in', 'Zoom in', () => viewer.zoomBy(1.25), '+'),
    button('Zoom out', 'Zoom out', () => viewer.zoomBy(0.8), '-'),
    button('Fit', 'Fit the image to the view', () => viewer.fit(), 'F'),
    button('Reset', 'Reset zoom, pan, window and inversion', () => viewer.reset(), 'R'),
    invertButton,
    ...windows.map((w) => button(w.name, w.title, () => setRange(...w.range))),
    readout,
  );
  const update = () => {
    const s = viewer.getState();
    invertButton.setAttribute('aria-pressed', String(s.inverted));
    readout.value = `W ${Math.round(s.windowWidth)} L ${Math.round(s.windowCenter)} · ${Math.round(s.zoom * 100)}%`;
  };
  for (const event of [Enums.Events.VOI_MODIFIED, Enums.Events.CAMERA_MODIFIED, Enums.Events.IMAGE_RENDERED]) element.addEventListener(event, update);
  // Keyboard shortcuts go to the viewer last pointed at or focused.
  for (const event of ['pointerenter', 'pointerdown', 'focusin']) figure.addEventListener(event, () => (current = viewer));

  const rendered = new Promise<void>((resolve) => element.addEventListener(Enums.Events.IMAGE_RENDERED, () => resolve(), { once: true }));
  await viewport.setStack([imageId]);
  render();
  await rendered;
  window.cxrViewers[index] = viewer; // index-aligned with the page's figures; a figure that failed leaves a hole
  figure.dataset.ready = 'true';
  return viewer;
}

function onKey(event: KeyboardEvent): void {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return; // Ctrl+R, Ctrl+F, Ctrl +/- stay the browser's
  const target = event.target as HTMLElement | null;
  // Typing goes to fields; an answer radio or checkbox with focus still lets the viewer's keys through (as reader.js does).
  if (target?.closest('input:not([type="radio"], [type="checkbox"]), textarea, select, [contenteditable]:not([contenteditable="false"])')) return;
  const action = SHORTCUTS[event.key.toLowerCase()];
  const focused = target?.closest<HTMLElement>('.cxr-view');
  const viewer = (focused && window.cxrViewers.find((v) => v?.figure === focused)) || current || window.cxrViewers.find((v) => v);
  if (!action || !viewer || (event.repeat && event.key !== '+' && event.key !== '-')) return;
  action(viewer); // no preventDefault: these keys do nothing else on the page
}

async function start(): Promise<void> {
  window.cxrViewers = [];
  const figures = Array.from(document.querySelectorAll<HTMLElement>('figure.cxr-view'));
  if (figures.length === 0) return;
  initCore();
  // CPU rendering without WebGL, and also on a software rasteriser (SwiftShader, llvmpipe — what Chromium gives
  // with --disable-gpu or a blocklisted GPU), where cornerstone's canvas path does the same 2-D job without
  // emulating GL. Both paths render the full 16 bits.
  const gpu = getRenderingCapabilities();
  const chosen = window.cxrViewerRenderer;
  setUseCPURendering(!gpu.webgl || chosen === 'cpu' || (chosen !== 'gpu' && gpu.softwareRasterizer));
  const renderer = getShouldUseCPURendering() ? 'cpu' : 'gpu';
  // Tool cursors are SVGs loaded from blob: URLs, which the CSP's img-src does not allow; viewer.css sets a cursor instead.
  Settings.getRuntimeSettings().set('useCursors', false);
  initTools();
  for (const tool of [WindowLevelTool, PanTool, ZoomTool]) addTool(tool);
  const tools = ToolGroupManager.createToolGroup(TOOL_GROUP_ID)!;
  const { MouseBindings, KeyboardBindings } = ToolEnums;
  tools.addTool(WindowLevelTool.toolName);
  tools.addTool(PanTool.toolName);
  tools.addTool(ZoomTool.toolName);
  tools.setToolActive(WindowLevelTool.toolName, { bindings: [{ mouseButton: MouseBindings.Primary }] });
  tools.setToolActive(PanTool.toolName, {
    bindings: [{ mouseButton: MouseBindings.Secondary }, { mouseButton: MouseBindings.Auxiliary }, { mouseButton: MouseBindings.Primary, modifierKey: KeyboardBindings.Ctrl }],
  });
  tools.setToolActive(ZoomTool.toolName, { bindings: [{ mouseButton: MouseBindings.Wheel }, { mouseButton: MouseBindings.Primary, modifierKey: KeyboardBindings.Shift }] });

  const engine = new RenderingEngine(ENGINE_ID);
  document.addEventListener('keydown', onKey);
  // The engine does not follow its elements' size; a resize keeps the camera (zoom and pan) where the reader left it.
  let pending = 0;
  const resize = new ResizeObserver(() => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => engine.resize(true, true));
  });
  await Promise.all(figures.map(async (figure, index) => {
    figure.dataset.renderer = renderer;
    try {
      await mount(figure, index, engine);
      resize.observe(figure.querySelector('.cxr-viewport')!);
    } catch (error) {
      figure.dataset.error = 'true';
      const message = document.createElement('p');
      message.className = 'cxr-error';
      message.setAttribute('role', 'alert');
      message.textContent = `The image could not be shown (${error instanceof Error ? error.message : String(error)}).`;
      // Over the viewport (cornerstone still owns its children) rather than in place of it, so the layout holds.
      figure.querySelector('.cxr-viewport')?.append(message);
    }
  }));
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => void start());
else void start();
