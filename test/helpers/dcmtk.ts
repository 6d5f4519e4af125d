import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Where Debian puts the tools. */
const BIN = '/usr/bin';

/**
 * A Debian package's command-line tools, installed when `probe` is missing and running as root, as ./run does for
 * Chromium; otherwise the test fails saying how to install them — the project runs every test, none is skipped.
 */
function debianTools(pkg: string, probe: string, what: string): { run: (tool: string, args: string[]) => string } {
  if (!existsSync(`${BIN}/${probe}`)) {
    const root = typeof process.getuid === 'function' && process.getuid() === 0;
    if (!root || !existsSync('/usr/bin/apt-get')) throw new Error(`the image tests need ${what}: sudo apt-get install -y ${pkg}`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const update = spawnSync('apt-get', ['update', '-qq'], { env, encoding: 'utf8' });
    const install = spawnSync('apt-get', ['install', '-y', '-qq', pkg], { env, encoding: 'utf8' });
    if (update.status !== 0 || install.status !== 0 || !existsSync(`${BIN}/${probe}`)) {
      throw new Error(`installing ${pkg} failed (apt-get update: ${update.status}, install: ${install.status}): ${install.stderr || update.stderr}`);
    }
  }
  return { run: (tool, args) => execFileSync(`${BIN}/${tool}`, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
}

/** The dcmtk tools (dcm2pnm, dcmodify, dcmconv, dcmcrle, dcmcjpeg, dcmcjpls, dump2dcm) the image tests compare with and derive files with. */
export function dcmtk(): { run: (tool: string, args: string[]) => string } {
  return debianTools('dcmtk', 'dcm2pnm', 'dcmtk (dcm2pnm, dcmodify, dcmconv)');
}

/** OpenJPEG's reference encoder and decoder (opj_compress, opj_decompress): dcmtk has no JPEG 2000 codec. */
export function openjpegTools(): { run: (tool: string, args: string[]) => string } {
  return debianTools('libopenjp2-tools', 'opj_compress', "OpenJPEG's tools (opj_compress, opj_decompress)");
}

/** OpenJPH's encoder (ojph_compress) for High-Throughput JPEG 2000. */
export function openjphTools(): { run: (tool: string, args: string[]) => string } {
  return debianTools('openjph-tools', 'ojph_compress', "OpenJPH's tools (ojph_compress)");
}
