/** The port `cxrbench serve` listens on unless given `--port`; the demo prints its links for the same one. */
export const DEFAULT_BOARD_PORT = 8080;

/** The address of a board served on this machine on `port` (serve's default host, 127.0.0.1). */
export function localBoardUrl(port: number): string {
  return `http://127.0.0.1:${port}`;
}
