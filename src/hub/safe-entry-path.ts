/** Where an archive entry may be written, or why it may not. */
export type EntryPlace = { ok: true; relative: string } | { ok: false; reason: string };

/**
 * Checks an archive entry's name before anything is written: absolute names, drive letters and any `..` segment
 * are refused outright, rather than "cleaned", since an archive that holds them is not the one the hub lists and
 * every later entry is then suspect too. Backslashes count as separators so a name cannot hide `..\` from Windows.
 * Returns the name relative to the output folder, with `.` segments and doubled slashes removed.
 */
export function safeEntryPath(name: string): EntryPlace {
  if (name.includes('\0')) return { ok: false, reason: 'has a NUL byte in its name' };
  if (name.startsWith('/') || name.startsWith('\\') || /^[A-Za-z]:/.test(name)) return { ok: false, reason: 'is an absolute path' };
  const segments = name.split(/[/\\]+/).filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return { ok: false, reason: 'climbs out with ".."' };
  return { ok: true, relative: segments.join('/') };
}
