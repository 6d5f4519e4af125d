import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Where Debian's dcmtk puts its tools. */
const BIN = '/usr/bin';

/**
 * The dcmtk tools (dcm2pnm, dcmodify, dcmconv, dcmcrle, dcmcjpeg) the image tests compare with and derive
 * files with. Installed from Debian when missing and running as root, as ./run does for Chromium; otherwise
 * the test fails saying how to install it — the project runs every test, none is skipped.
 */
export function dcmtk(): { run: (tool: string, args: string[]) => string } {
  if (!existsSync(`${BIN}/dcm2pnm`)) {
    const root = typeof process.getuid === 'function' && process.getuid() === 0;
    if (!root || !existsSync('/usr/bin/apt-get')) throw new Error('the image tests need dcmtk (dcm2pnm, dcmodify, dcmconv): sudo apt-get install -y dcmtk');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const update = spawnSync('apt-get', ['update', '-qq'], { env, encoding: 'utf8' });
    const install = spawnSync('apt-get', ['install', '-y', '-qq', 'dcmtk'], { env, encoding: 'utf8' });
    if (update.status !== 0 || install.status !== 0 || !existsSync(`${BIN}/dcm2pnm`)) {
      throw new Error(`installing dcmtk failed (apt-get update: ${update.status}, install: ${install.status}): ${install.stderr || update.stderr}`);
    }
  }
  return { run: (tool, args) => execFileSync(`${BIN}/${tool}`, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
}
