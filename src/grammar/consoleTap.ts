/**
 * xgrammar prints its real error messages only to console.error, through a reference it binds once when its
 * wasm module is created, and then throws a bare "Aborted()". This tap is installed before xgrammar loads
 * (engine.ts imports it first), forwards everything to the original console.error, and lets one call at a
 * time collect what was printed instead.
 */
let collector: string[] | null = null;
const originalError = console.error.bind(console);

console.error = (...args: unknown[]) => {
  if (collector) collector.push(args.map(String).join(' '));
  else originalError(...args);
};

/** Runs `call`, collecting console.error lines it prints; they are handed to `onError` if it throws. */
export async function collectingConsoleErrors<T>(
  call: () => Promise<T>,
  onError: (printed: string[], error: unknown) => Error,
): Promise<T> {
  const printed: string[] = [];
  collector = printed;
  try {
    return await call();
  } catch (error) {
    throw onError(printed, error);
  } finally {
    collector = null;
  }
}
