/**
 * `npm run serve`'s budgeted schema compile. A schema from a request is first compiled in a worker thread (a
 * pool of one, serveCompileWorker.ts), where xgrammar's compile (which cannot be interrupted) runs off the
 * event loop: /metrics, queued streams' heartbeats and other requests go on meanwhile. A compile still running
 * after SCHEMA_LIMITS.compileSeconds (the app's budget) stops the thread and refuses the schema with the app's
 * words; a schema refused so is remembered, so that repeating the request costs nothing. Only a schema that
 * compiled within the budget is compiled again by the engine in the server's thread (xgrammar's compiled
 * grammar cannot cross threads), which therefore holds the event loop for at most the budget, once per schema.
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { SCHEMA_LIMITS } from '../../src/contract/limits';
import { compileTimeoutMessage } from '../../src/contract/validation';
import { SchemaError, measureSchema, parseSchemaText } from '../../src/grammar/schema';
import type { GrammarVocabulary } from '../../src/grammar/vocabulary';

export interface CompileQuestion {
  id: number;
  schemaText: string;
}

export type CompileAnswer =
  | { type: 'ready' }
  | { type: 'setup-failed'; message: string }
  | { type: 'compiled'; id: number; ms: number }
  | { type: 'refused'; id: number; message: string; trap: boolean };

/** How many schemas refused for their compile time are remembered (by digest), so that a repeat costs nothing. */
const REMEMBERED_REFUSALS = 256;

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

export class CompileGate {
  private worker: { thread: Worker; ready: Promise<void> } | null = null;
  /** One compile at a time: the thread is a pool of one. */
  private turn: Promise<unknown> = Promise.resolve();
  private asked = 0;
  private readonly refused = new Map<string, string>();

  constructor(
    private readonly vocabulary: GrammarVocabulary,
    readonly budgetMs = SCHEMA_LIMITS.compileSeconds * 1000,
  ) {}

  /** Resolves once `schemaText` compiled within the budget; a SchemaError says why it did not. */
  check(schemaText: string): Promise<void> {
    const key = digest(schemaText);
    const known = this.refused.get(key);
    if (known !== undefined)
      return Promise.reject(new SchemaError(`${known}; this schema was refused so before, and is not compiled again`));
    const checked = this.turn.then(() => this.compile(schemaText, key));
    this.turn = checked.catch(() => undefined);
    return checked;
  }

  /** Stops the thread (the server closed); a later check starts a fresh one. */
  close(): void {
    void this.worker?.thread.terminate();
    this.worker = null;
  }

  private started(): { thread: Worker; ready: Promise<void> } {
    if (this.worker !== null) return this.worker;
    const thread = new Worker(new URL('./serveCompileWorker.mjs', import.meta.url), { workerData: this.vocabulary });
    // The thread never keeps the server's process alive on its own.
    thread.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const onMessage = (answer: CompileAnswer) => {
        if (answer.type === 'ready') resolve();
        if (answer.type === 'setup-failed') reject(new Error(`the schema compiler did not start: ${answer.message}`));
      };
      thread.on('message', onMessage);
      thread.once('error', (error) => reject(new Error(`the schema compiler did not start: ${error.message}`)));
    });
    const worker = { thread, ready };
    thread.once('exit', () => {
      if (this.worker === worker) this.worker = null;
    });
    this.worker = worker;
    return worker;
  }

  private async compile(schemaText: string, key: string): Promise<void> {
    const { thread, ready } = this.started();
    await ready;
    const id = ++this.asked;
    return new Promise<void>((resolve, reject) => {
      const finish = (error: Error | null) => {
        clearTimeout(timer);
        thread.off('message', onMessage);
        thread.off('exit', onExit);
        if (error === null) resolve();
        else reject(error);
      };
      const onMessage = (answer: CompileAnswer) => {
        if (answer.type === 'compiled' && answer.id === id) finish(null);
        if (answer.type !== 'refused' || answer.id !== id) return;
        // After a trap xgrammar's memory may be corrupt: the next schema gets a fresh thread.
        if (answer.trap) this.close();
        finish(new SchemaError(answer.message));
      };
      const onExit = (code: number) => finish(new Error(`the schema compiler stopped (exit code ${code})`));
      const timer = setTimeout(() => {
        const size = measureSchema(parseSchemaText(schemaText));
        const message = compileTimeoutMessage(this.budgetMs, size.properties, size.nestedRepetition);
        this.remember(key, message);
        this.close();
        finish(new SchemaError(message));
      }, this.budgetMs);
      thread.on('message', onMessage);
      thread.once('exit', onExit);
      thread.postMessage({ id, schemaText } satisfies CompileQuestion);
    });
  }

  private remember(key: string, message: string): void {
    if (this.refused.size >= REMEMBERED_REFUSALS) this.refused.delete(this.refused.keys().next().value as string);
    this.refused.set(key, message);
  }
}
