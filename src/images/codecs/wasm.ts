import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** An Emscripten module factory as the @cornerstonejs codec packages export it (CommonJS, MODULARIZE). */
type EmscriptenFactory = (module: Record<string, unknown>) => Promise<unknown>;

/** A decoder class of a codec package (embind): a codestream goes in through getEncodedBuffer, samples come out of getDecodedBuffer. */
export interface EmbindDecoder {
  getEncodedBuffer(length: number): Uint8Array;
  getDecodedBuffer(): Uint8Array;
  decode(): void;
  getFrameInfo(): { width: number; height: number; bitsPerSample: number; componentCount: number; isSigned?: boolean };
  delete(): void;
}

/** A live instance: the Emscripten module object, its memory, and what the codec printed since the last decoder was made. */
interface Loaded {
  module: Record<string, unknown>;
  memory: WebAssembly.Memory | null;
  messages: string[];
}

/**
 * One WebAssembly codec of a @cornerstonejs codec package, loaded the first time a file needs it and then kept for
 * the thread (each conversion thread has its own). Loading is synchronous — the module is compiled from the package's
 * .wasm file and instantiated through Emscripten's documented `instantiateWasm` hook, after which the runtime is up
 * before the factory returns — so readDicom stays synchronous. After a failed decode the instance is dropped
 * (`discard`): a C++ exception or an abort can leave it in an unknown state, and a fresh instance of the compiled
 * module is cheap.
 */
export class WasmCodec {
  #compiled: WebAssembly.Module | null = null;
  #loaded: Loaded | null = null;

  /** `glue` and `wasm` are the package's export paths of its decode-only JavaScript and WebAssembly files. */
  constructor(
    readonly library: string,
    private readonly glue: string,
    private readonly wasm: string,
    private readonly className: string,
  ) {}

  /** A new decoder object; the caller deletes it. */
  decoder(): EmbindDecoder {
    const loaded = this.#load();
    loaded.messages.length = 0;
    const Decoder = loaded.module[this.className] as new () => EmbindDecoder;
    return new Decoder();
  }

  /** Forgets the instance (after a failure); the compiled module is kept. */
  discard(): void {
    this.#loaded = null;
  }

  /**
   * What a value thrown out of the codec says — a JavaScript error's message, or the C++ exception's text read from
   * the module's memory — and the last lines the codec printed (undefined `thrown`: those lines alone).
   */
  describe(thrown?: unknown): string {
    const loaded = this.#loaded;
    let text: string | null = null;
    if (thrown instanceof Error) text = thrown.message;
    else if (typeof thrown === 'string') text = thrown;
    else if (typeof thrown === 'number' && loaded) text = exceptionText(loaded.module, loaded.memory, thrown);
    const printed = loaded?.messages.filter((m) => m.trim() !== '').slice(-2).join('; ');
    return [text, printed].filter(Boolean).join('; ') || 'the codec failed without a message';
  }

  #load(): Loaded {
    if (this.#loaded) return this.#loaded;
    const factory = require(this.glue) as EmscriptenFactory;
    const compiled = (this.#compiled ??= new WebAssembly.Module(readFileSync(require.resolve(this.wasm))));
    const messages: string[] = [];
    let memory: WebAssembly.Memory | null = null;
    let ready = false;
    const module: Record<string, unknown> = {
      instantiateWasm(imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
        const instance = new WebAssembly.Instance(compiled, imports);
        memory = (Object.values(instance.exports).find((e) => e instanceof WebAssembly.Memory) as WebAssembly.Memory | undefined) ?? null;
        receive(instance, compiled);
        return instance.exports;
      },
      onRuntimeInitialized() {
        ready = true;
      },
      // The codecs' own warnings go to these; they are kept (the last ones explain a failure) instead of printed.
      print: (line: string) => messages.push(String(line)),
      printErr: (line: string) => messages.push(String(line)),
      onAbort: (what: unknown) => messages.push(`aborted: ${String(what)}`),
    };
    // The promise resolves with `module` itself, already initialised; a later abort rejects nothing that is awaited.
    factory(module).catch(() => undefined);
    if (!ready || typeof module[this.className] !== 'function') {
      throw new Error(`${this.library} did not initialise synchronously (${this.glue}): its Emscripten build may have changed`);
    }
    this.#loaded = { module, memory, messages };
    return this.#loaded;
  }
}

/**
 * The text of a C++ exception thrown out of a codec (Emscripten throws its address as a number). CharLS exports
 * getExceptionMessage; for the others the thrown object is a `const char*` or a std::exception, whose message
 * pointer is its first or second word — the first candidate that reads as text is taken.
 */
function exceptionText(module: Record<string, unknown>, memory: WebAssembly.Memory | null, address: number): string | null {
  const helper = module['getExceptionMessage'];
  if (typeof helper === 'function') {
    try {
      const message = (helper as (a: number) => unknown)(address);
      const parts = (Array.isArray(message) ? message : [message]).map(String).filter((s) => s !== '' && s !== 'undefined');
      if (parts.length > 0) return parts[parts.length - 1]!;
    } catch {
      // fall through to reading the memory
    }
  }
  if (!memory || address <= 0 || address + 8 > memory.buffer.byteLength) return null;
  const view = new DataView(memory.buffer);
  for (const pointer of [view.getUint32(address, true), view.getUint32(address + 4, true)]) {
    const text = cString(new Uint8Array(memory.buffer), pointer);
    if (text) return text;
  }
  return null;
}

function cString(heap: Uint8Array, at: number): string | null {
  if (at <= 0 || at >= heap.length) return null;
  let end = at;
  while (end < heap.length && end - at < 300 && heap[end] !== 0) {
    const c = heap[end]!;
    if ((c < 0x20 && c !== 0x0a && c !== 0x09) || c > 0x7e) return null;
    end++;
  }
  // (libjpeg-turbo's messages carry a line end, and some a leading "~~")
  const text = heap[end] === 0 ? String.fromCharCode(...heap.subarray(at, end)).replace(/^[~\s]+|\s+$/g, '') : '';
  return text.length >= 4 ? text : null;
}
