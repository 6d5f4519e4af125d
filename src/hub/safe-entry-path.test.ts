import assert from 'node:assert/strict';
import { test } from 'node:test';
import { safeEntryPath } from './safe-entry-path.js';

test('safeEntryPath: names inside the folder are kept, relative and normalised', () => {
  const cases: [string, string][] = [
    ['deid_png/P1/A1/studies/S1/series/R1/instances/I1.png', 'deid_png/P1/A1/studies/S1/series/R1/instances/I1.png'],
    ['./deid_png/a.png', 'deid_png/a.png'],
    ['deid_png//a.png', 'deid_png/a.png'],
    ['deid_png/./a.png', 'deid_png/a.png'],
    ['deid_png/', 'deid_png'],
    ['deid_png\\P1\\a.png', 'deid_png/P1/a.png'],
    ['deid_png/..a/b..png', 'deid_png/..a/b..png'],
  ];
  for (const [name, relative] of cases) assert.deepEqual(safeEntryPath(name), { ok: true, relative }, name);
});

test('safeEntryPath: absolute names, drive letters, ".." anywhere and NUL bytes are refused with the reason', () => {
  const absolute = 'is an absolute path';
  const climbs = 'climbs out with ".."';
  const cases: [string, string][] = [
    ['/etc/passwd', absolute],
    ['//server/share/x', absolute],
    ['\\Windows\\system32\\x.dll', absolute],
    ['\\\\server\\share\\x', absolute],
    ['C:\\Windows\\x.dll', absolute],
    ['c:/x.png', absolute],
    ['C:x.png', absolute],
    ['..', climbs],
    ['../x.png', climbs],
    ['deid_png/../../x.png', climbs],
    ['deid_png/a/../b.png', climbs],
    ['deid_png\\..\\..\\x.png', climbs],
    ['deid_png/..\\x.png', climbs],
    ['deid_png/..', climbs],
    ['deid_png/a.png\0.txt', 'has a NUL byte in its name'],
  ];
  for (const [name, reason] of cases) assert.deepEqual(safeEntryPath(name), { ok: false, reason }, name);
});
