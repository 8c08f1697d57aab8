/** Input files named on the command line, read with a bound (CLI_LIMITS): /dev/zero or a huge file is refused, not read whole. */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { CLI_LIMITS } from '../../src/contract/limits';
import { UsageError } from './args';
import { terminalSafe } from './terminalSafe';

/**
 * Reads an input file given on the command line, at most CLI_LIMITS.fileBytes: a larger file, or an endless
 * one (/dev/zero, a pipe that never closes its size), is refused once the limit is passed, before it is read whole.
 */
export function readInputFile(
  path: string,
  option: string,
  maxBytes: number = CLI_LIMITS.fileBytes,
  pipeWaitMs: number = CLI_LIMITS.pipeWaitMs,
): string {
  let fd: number;
  try {
    // Non-blocking, so that opening a FIFO with no writer does not wait for ever.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new UsageError(`${option} ${terminalSafe(path)}: ${(error as Error).message}`);
  }
  try {
    const pipe = fstatSync(fd).isFIFO();
    const deadline = Date.now() + pipeWaitMs;
    // A FIFO answers "nothing yet" (EAGAIN) while its writer is silent, and "the end" (0) before any writer opened it.
    const waitOrRefuse = () => {
      if (Date.now() >= deadline)
        throw new UsageError(
          `${option} ${terminalSafe(path)} is a pipe that nothing wrote to within ${pipeWaitMs / 1000} s`,
        );
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    };
    const buffer = Buffer.alloc(Math.min(maxBytes + 1, 1 << 20));
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      let read: number;
      try {
        read = readSync(fd, buffer, 0, buffer.length, null);
      } catch (error) {
        if (pipe && (error as NodeJS.ErrnoException).code === 'EAGAIN') {
          waitOrRefuse();
          continue;
        }
        throw new UsageError(`${option} ${terminalSafe(path)}: ${(error as Error).message}`);
      }
      if (read === 0 && pipe && total === 0) {
        waitOrRefuse();
        continue;
      }
      if (read === 0) break;
      total += read;
      if (total > maxBytes)
        throw new UsageError(
          `${option} ${terminalSafe(path)} is larger than ${maxBytes / 2 ** 20} MiB, the most an input file may be`,
        );
      chunks.push(Buffer.from(buffer.subarray(0, read)));
    }
    // A byte-order mark (Windows editors write one) is not part of the text.
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
  } finally {
    closeSync(fd);
  }
}
