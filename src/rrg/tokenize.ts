/**
 * ReXrank's tokenisation for BLEU: lowercase, every `.` written ` .`, split on the single space character only
 * (a newline or tab stays inside its token, as in ReXrank's scripts), empty tokens dropped.
 */
export function rexrankTokens(text: string): string[] {
  return text.toLowerCase().replaceAll('.', ' .').split(' ').filter((t) => t.length > 0);
}

/**
 * Tokens for ROUGE-L as the rouge-score package makes them (no stemming): lowercase, anything but ASCII letters and
 * digits is a separator.
 */
export function rougeTokens(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter((t) => t.length > 0);
}
