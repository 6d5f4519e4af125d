/** The cxrbench version, recorded in every run manifest. Keep in step with package.json (a test checks). */
export const TOOL_VERSION = '0.1.0';
