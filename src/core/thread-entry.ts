/**
 * How a worker thread's module is loaded: the compiled JavaScript beside the caller, or in a source checkout the
 * TypeScript source through tsx (the thread does not inherit the main thread's loader).
 */
export function threadEntry(moduleName: string, callerUrl: string): { url: URL; execArgv: string[] } {
  const fromSource = callerUrl.endsWith('.ts');
  return { url: new URL(`./${moduleName}.${fromSource ? 'ts' : 'js'}`, callerUrl), execArgv: fromSource ? ['--import', import.meta.resolve('tsx')] : [] };
}
