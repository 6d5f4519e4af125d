/**
 * Streams the members of ONE top-level JSON object (`{"key": value, ...}`) from a byte stream, without ever
 * holding the whole file: the official ReXVQA train file is ~573K records and over a gigabyte.
 *
 * Why not a streaming JSON library: real ReXVQA files contain bare `NaN` (invalid JSON) that every strict
 * parser rejects, we need the exact line/column/byte of each record for error messages, and we must see
 * repeated keys (which `JSON.parse` silently collapses). The scanner only finds member boundaries — it
 * tracks strings and nesting — and hands each value's text to the native `JSON.parse`, which is far faster
 * than any tokenizer written in JavaScript. See docs/design/streaming-json.md.
 */

/** One `key: value` member of the top-level object, with the value still as text. */
export interface ObjectMember {
  key: string;
  /**
   * The value's bytes, verbatim: a view into the pushed chunk when the value lies within one chunk. Decoded only
   * when read, so a batch of members waiting to be processed does not age into the old generation as strings.
   */
  bytes: Buffer;
  /** The value's JSON text (decodes `bytes` on each read). */
  readonly text: string;
  /** 1-based line and column, and 0-based byte offset, of the value's first byte. */
  line: number;
  column: number;
  byteOffset: number;
  /** The value contains a bare identifier outside strings (`NaN`, `Infinity`, `None`): not JSON, needs repair. */
  hasBareWords: boolean;
}

/** The file is not one JSON object of members: where it went wrong. */
export class JsonStructureError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
    readonly byteOffset: number,
  ) {
    super(`${reason} at line ${line}, column ${column} (byte ${byteOffset})`);
    this.name = 'JsonStructureError';
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const UTF8_BOM = [0xef, 0xbb, 0xbf];

function isWhitespace(b: number): boolean {
  return b === 0x20 || b === NEWLINE || b === 0x0d || b === 0x09;
}

/** Bytes that can start a bare word outside strings; `true`/`false`/`null` are lowercase, so these are never JSON. */
function isBareWordStart(b: number): boolean {
  return (b >= 0x41 && b <= 0x5a) || b === 0x5f; // A–Z or _
}

type State = 'start' | 'beforeKey' | 'key' | 'afterKey' | 'beforeValue' | 'value' | 'afterValue' | 'end';

/**
 * Incremental scanner: feed it chunks with {@link ObjectMemberScanner.push}, get back the members each chunk
 * completed, and call {@link ObjectMemberScanner.end} after the last chunk.
 */
export class ObjectMemberScanner {
  private state: State = 'start';
  private line = 1;
  private lineStartOffset = 0; // absolute byte offset of the current line's first byte
  private chunkOffset = 0; // absolute byte offset of the current chunk's first byte
  // The text being collected (a key or a value) may span chunks: earlier chunks' parts wait here.
  private pieces: Buffer[] = [];
  private inString = false;
  private carriedBackslashes = 0; // backslashes that ended the previous chunk inside a string
  private depth = 0;
  private scalarValue = false; // a number/literal value: ends at ',', '}' or whitespace
  private key = '';
  private valueLine = 0;
  private valueColumn = 0;
  private valueOffset = 0;
  private hasBareWords = false;
  private membersSeen = 0;

  // A structure error found after some members of the same chunk were completed: those are returned first,
  // and the error is thrown by the next call, so no good record before an error is lost.
  private deferredError: JsonStructureError | null = null;

  /** Scans one chunk and returns the members it completed. The chunk's bytes must not change while its members are in use. */
  push(chunk: Buffer): ObjectMember[] {
    if (this.deferredError) throw this.deferredError;
    const out: ObjectMember[] = [];
    try {
      this.scan(chunk, out);
    } catch (error) {
      if (!(error instanceof JsonStructureError) || out.length === 0) throw error;
      this.deferredError = error;
    }
    return out;
  }

  private scan(chunk: Buffer, out: ObjectMember[]): void {
    const buf = chunk;
    const len = buf.length;
    let i = 0;
    let collectFrom = this.state === 'key' || this.state === 'value' ? 0 : -1;

    while (i < len) {
      if (this.inString) {
        const close = this.findClosingQuote(buf, i);
        if (close === -1) {
          i = len;
          break;
        }
        this.inString = false;
        i = close + 1;
        if (this.state === 'key') {
          this.pieces.push(buf.subarray(collectFrom, i));
          this.key = this.decodeKey(this.chunkOffset + i);
          collectFrom = -1;
          this.state = 'afterKey';
        } else if (this.depth === 0 && !this.scalarValue) {
          out.push(this.completeValue(buf, collectFrom, i)); // a top-level string value
          collectFrom = -1;
        }
        continue;
      }

      const b = buf[i]!;
      if (this.state === 'value') {
        if (this.scalarValue) {
          if (b === COMMA || b === CLOSE_BRACE || isWhitespace(b)) {
            out.push(this.completeValue(buf, collectFrom, i));
            collectFrom = -1;
            continue; // the terminator is read again in 'afterValue'
          }
          if (isBareWordStart(b)) this.hasBareWords = true;
        } else if (b === QUOTE) this.inString = true;
        else if (b === OPEN_BRACE || b === OPEN_BRACKET) this.depth++;
        else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
          if (--this.depth === 0) {
            i++;
            out.push(this.completeValue(buf, collectFrom, i));
            collectFrom = -1;
            continue;
          }
        } else if (b === NEWLINE) this.newline(i);
        else if (isBareWordStart(b)) this.hasBareWords = true;
        i++;
        continue;
      }

      if (isWhitespace(b)) {
        if (b === NEWLINE) this.newline(i);
        i++;
        continue;
      }
      const at = this.chunkOffset + i;
      if (this.state === 'start' && at < 3 && b === UTF8_BOM[at]) {
        i++; // a UTF-8 byte order mark, possibly split over chunks
        continue;
      }
      switch (this.state) {
        case 'start':
          if (b !== OPEN_BRACE) this.fail(`expected the file to be one JSON object '{', found ${describe(b)}`, at);
          this.state = 'beforeKey';
          break;
        case 'beforeKey':
          if (b === CLOSE_BRACE && this.membersSeen === 0) {
            this.state = 'end';
            break;
          }
          if (b !== QUOTE) this.fail(`expected a question key (a string), found ${describe(b)}`, at);
          this.state = 'key';
          this.inString = true;
          collectFrom = i;
          this.pieces = [];
          break;
        case 'afterKey':
          if (b !== COLON) this.fail(`expected ':' after key "${this.key}", found ${describe(b)}`, at);
          this.state = 'beforeValue';
          break;
        case 'beforeValue':
          if (b === COMMA || b === CLOSE_BRACE || b === CLOSE_BRACKET || b === COLON) {
            this.fail(`expected a value for key "${this.key}", found ${describe(b)}`, at);
          }
          this.state = 'value';
          this.valueLine = this.line;
          this.valueColumn = at - this.lineStartOffset + 1;
          this.valueOffset = at;
          this.hasBareWords = false;
          this.pieces = [];
          collectFrom = i;
          this.depth = b === OPEN_BRACE || b === OPEN_BRACKET ? 1 : 0;
          this.inString = b === QUOTE;
          this.scalarValue = this.depth === 0 && !this.inString;
          if (this.scalarValue && isBareWordStart(b)) this.hasBareWords = true;
          break;
        case 'afterValue':
          if (b === COMMA) this.state = 'beforeKey';
          else if (b === CLOSE_BRACE) this.state = 'end';
          else this.fail(`expected ',' or '}' after the value of key "${this.key}", found ${describe(b)}`, at);
          break;
        case 'end':
          this.fail(`unexpected ${describe(b)} after the end of the top-level object`, at);
      }
      i++;
    }
    // Keep the unfinished key or value's bytes: copied, because the caller may reuse the chunk's memory.
    if (collectFrom !== -1 && collectFrom < len) this.pieces.push(Buffer.from(buf.subarray(collectFrom)));
    this.chunkOffset += len;
  }

  /** Checks that the input ended at the end of the object; returns a scalar member the end of input completed. */
  end(): ObjectMember[] {
    if (this.deferredError) throw this.deferredError;
    if (this.state === 'value' && this.scalarValue) {
      // a number at the very end with no closing brace: still an error below, but report the right thing
      this.state = 'afterValue';
    }
    if (this.state === 'start') throw new JsonStructureError('the file is empty: expected one JSON object', this.line, 1, this.chunkOffset);
    if (this.state !== 'end') {
      const what = this.inString ? 'an unterminated string' : this.state === 'value' ? 'an unterminated value' : "a missing closing '}'";
      const last = this.key ? ` (last key "${this.key}")` : '';
      throw new JsonStructureError(`unexpected end of file: ${what}${last}`, this.line, this.chunkOffset - this.lineStartOffset + 1, this.chunkOffset);
    }
    return [];
  }

  /** Index of the unescaped closing quote at or after `from`, or -1 when the string goes on past this chunk. */
  private findClosingQuote(buf: Buffer, from: number): number {
    let start = from;
    let q = buf.indexOf(QUOTE, start);
    while (q !== -1) {
      let k = q - 1;
      let run = 0;
      while (k >= start && buf[k] === BACKSLASH) {
        run++;
        k--;
      }
      if (k < start) run += this.carriedBackslashes;
      this.carriedBackslashes = 0;
      if (run % 2 === 0) return q;
      start = q + 1;
      q = buf.indexOf(QUOTE, start);
    }
    let k = buf.length - 1;
    let run = 0;
    while (k >= start && buf[k] === BACKSLASH) {
      run++;
      k--;
    }
    this.carriedBackslashes = k < start ? this.carriedBackslashes + run : run;
    return -1;
  }

  private completeValue(buf: Buffer, collectFrom: number, endIndex: number): ObjectMember {
    this.pieces.push(buf.subarray(collectFrom, endIndex));
    const bytes = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces);
    this.pieces = [];
    this.state = 'afterValue';
    this.membersSeen++;
    return {
      key: this.key,
      bytes,
      get text() {
        return this.bytes.toString('utf8');
      },
      line: this.valueLine,
      column: this.valueColumn,
      byteOffset: this.valueOffset,
      hasBareWords: this.hasBareWords,
    };
  }

  private decodeKey(at: number): string {
    const bytes = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces);
    this.pieces = [];
    // Keys rarely hold escapes; when they do not, the text between the quotes is the key.
    if (bytes.indexOf(BACKSLASH) === -1) return bytes.toString('utf8', 1, bytes.length - 1);
    const text = bytes.toString('utf8');
    try {
      return JSON.parse(text) as string;
    } catch {
      return this.fail(`invalid question key ${text.slice(0, 80)}`, at);
    }
  }

  private newline(indexInChunk: number): void {
    this.line++;
    this.lineStartOffset = this.chunkOffset + indexInChunk + 1;
  }

  private fail(reason: string, at: number): never {
    throw new JsonStructureError(reason, this.line, at - this.lineStartOffset + 1, at);
  }
}

function describe(b: number): string {
  return b >= 0x20 && b < 0x7f ? `'${String.fromCharCode(b)}'` : `byte 0x${b.toString(16).padStart(2, '0')}`;
}

/**
 * Yields every member of the top-level object in file order, duplicates included.
 * Throws {@link JsonStructureError} when the bytes are not an object of members.
 */
export async function* streamObjectMembers(chunks: AsyncIterable<Buffer | Uint8Array | string>): AsyncGenerator<ObjectMember> {
  const scanner = new ObjectMemberScanner();
  for await (const chunk of chunks) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    yield* scanner.push(buf);
  }
  yield* scanner.end();
}
