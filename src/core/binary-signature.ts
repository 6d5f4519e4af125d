/**
 * Recognises a file that is not text by its first bytes (as decoded to text: invalid UTF-8 bytes are U+FFFD), so a
 * picture or spreadsheet uploaded by mistake is named instead of failing deep in a parser with a garbled message.
 */
const SIGNATURES: { what: string; test: (head: string) => boolean }[] = [
  { what: 'a PNG image', test: (h) => /^\uFFFDPNG\r\n/.test(h) },
  { what: 'a JPEG image', test: (h) => h.startsWith('\uFFFD\uFFFD\uFFFD') && /JFIF|Exif/.test(h.slice(0, 40)) },
  { what: 'a GIF image', test: (h) => h.startsWith('GIF87a') || h.startsWith('GIF89a') },
  { what: 'a PDF document', test: (h) => h.startsWith('%PDF-') },
  { what: 'a ZIP archive (or an Excel/Word file, which are ZIP archives)', test: (h) => h.startsWith('PK\u0003\u0004') },
  { what: 'a gzip-compressed file', test: (h) => h.startsWith('\u001f\uFFFD') },
  { what: 'a DICOM file', test: (h) => h.slice(128, 132) === 'DICM' },
];

/** What kind of non-text file `text` looks like, or null when it looks like text. */
export function describeBinary(text: string): string | null {
  const head = text.slice(0, 1024);
  for (const s of SIGNATURES) if (s.test(head)) return s.what;
  // Text files hold no NUL characters; a run of replacement characters means bytes that are not UTF-8.
  if (head.includes('\u0000')) return 'a binary file (it holds NUL bytes)';
  const replaced = head.length > 0 ? (head.match(/\uFFFD/g)?.length ?? 0) / head.length : 0;
  if (replaced > 0.1) return 'a binary file (many of its bytes are not UTF-8 text)';
  return null;
}

/** A value as it may be echoed back: cut to `max` characters with the count of the rest. */
export function shortened(value: string, max = 60): string {
  return value.length > max ? `${value.slice(0, max)}… (${value.length - max} more characters)` : value;
}
