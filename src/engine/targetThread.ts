/**
 * The target on a thread of its own, so that the drafter can draft the next block while the target scores
 * this one (draftAhead.ts): `serveTarget` answers on that thread with a CachedTarget per run, and RemoteTarget
 * is the TargetHalf a pair uses on the drafting thread. The messages are plain data; the rows travel as
 * transferred buffers. Works over a Web Worker's port or Node's worker_threads alike (wasm EP: the logits come
 * back to the CPU).
 */
import type { ScoringPlan, TargetScoring } from '../contract/stepRecord';
import type { ModelSession } from '../models/session';
import { CachedTarget, type ScoredRows, type TargetHalf } from './pairModels';

/** The part of a MessagePort (DOM or worker_threads) both ends use. */
export interface ThreadPort {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener?(type: 'message', listener: (event: { data: unknown }) => void): void;
  on?(type: 'message', listener: (data: unknown) => void): void;
}

type Body =
  | { op: 'open'; treeScoring: boolean }
  | { op: 'score'; context: readonly number[]; drafts: Int32Array; K: number; L: number }
  | { op: 'next'; context: readonly number[] }
  | { op: 'commit'; chosen: number; accepted: number }
  | { op: 'close' };

type Request = Body & { id: number };

type Reply =
  | { id: number; ok: true; V?: number; scoring?: ScoringPlan; logits?: Float32Array; rowsScoring?: TargetScoring }
  | { id: number; ok: false; error: string };

function listen(port: ThreadPort, handle: (data: unknown) => void): void {
  if (port.on) port.on('message', handle);
  else port.addEventListener?.('message', (event) => handle(event.data));
}

/** Answers a drafting thread's requests with `session`: one run at a time, opened and closed by it. */
export function serveTarget(port: ThreadPort, session: ModelSession): void {
  let target: CachedTarget | null = null;
  // A commit is not answered: its failure is the next request's answer.
  let failure: string | null = null;
  const reply = (message: Reply, transfer: Transferable[] = []) => port.postMessage(message, transfer);
  const open = () => {
    if (!target) throw new Error('no run is open on the target thread');
    return target;
  };
  const handle = async (request: Request): Promise<void> => {
    if (failure !== null && request.op !== 'open') throw new Error(failure);
    switch (request.op) {
      case 'open':
        target?.dispose();
        failure = null;
        target = new CachedTarget(session, { treeScoring: request.treeScoring });
        return reply({ id: request.id, ok: true, V: target.V, scoring: target.scoring });
      case 'score': {
        const { logits, scoring } = await open().score(request.context, request.drafts, request.K, request.L);
        return reply({ id: request.id, ok: true, logits, rowsScoring: scoring }, [logits.buffer]);
      }
      case 'next': {
        const logits = (await open().targetNext(request.context)).slice();
        return reply({ id: request.id, ok: true, logits }, [logits.buffer]);
      }
      case 'commit':
        return open().commit(request.chosen, request.accepted);
      case 'close':
        target?.dispose();
        target = null;
        return reply({ id: request.id, ok: true });
    }
  };
  // One request at a time, in the order sent: a commit lands before the next step's score.
  let queue = Promise.resolve();
  listen(port, (data) => {
    const request = data as Request;
    queue = queue.then(() =>
      handle(request).catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        if (request.op === 'commit') failure = message;
        else reply({ id: request.id, ok: false, error: message });
      }),
    );
  });
}

/** The drafting thread's end: requests to a target thread, answered in order. */
export class TargetThreadClient {
  private nextId = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (reply: Reply & { ok: true }) => void; reject: (error: Error) => void }
  >();

  constructor(private readonly port: ThreadPort) {
    listen(port, (data) => {
      const reply = data as Reply;
      const waiter = this.waiting.get(reply.id);
      if (!waiter) return;
      this.waiting.delete(reply.id);
      if (reply.ok) waiter.resolve(reply);
      else waiter.reject(new Error(`the target thread: ${reply.error}`));
    });
  }

  /** Why the thread is gone (it failed or exited), once it is: every request waiting and every later one fails with it. */
  private gone: Error | null = null;

  request(message: Body, transfer: Transferable[] = []): Promise<Reply & { ok: true }> {
    if (this.gone) return Promise.reject(this.gone);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.port.postMessage({ ...message, id }, transfer);
    });
  }

  /** The thread failed or exited: no answer will come. */
  lost(reason: string): void {
    this.gone = new Error(`the target thread ${reason}`);
    for (const waiter of this.waiting.values()) waiter.reject(this.gone);
    this.waiting.clear();
  }

  /** Sends without waiting for an answer (a commit: the thread answers the next request with its failure, if any). */
  send(message: Body): void {
    if (!this.gone) this.port.postMessage({ ...message, id: this.nextId++ });
  }

  /** A run's target half on the thread (its caches start empty). */
  async open(treeScoring = true): Promise<RemoteTarget> {
    const { V, scoring } = await this.request({ op: 'open', treeScoring });
    return new RemoteTarget(this, V as number, scoring as ScoringPlan);
  }
}

/** A run's target half, answered by the target thread. Its cache gathers happen there, inside the wait. */
export class RemoteTarget implements TargetHalf {
  constructor(
    private readonly client: TargetThreadClient,
    readonly V: number,
    readonly scoring: ScoringPlan,
  ) {}

  async score(context: readonly number[], drafts: Int32Array, K: number, L: number): Promise<ScoredRows> {
    // postMessage copies the context and the drafts (structured clone): the caller may reuse them at once.
    const reply = await this.client.request({ op: 'score', context, drafts, K, L });
    return { logits: reply.logits as Float32Array, onGpu: null, scoring: reply.rowsScoring as TargetScoring };
  }

  async targetNext(context: readonly number[]): Promise<Float32Array> {
    return (await this.client.request({ op: 'next', context })).logits as Float32Array;
  }

  commit(chosen: number, accepted: number): void {
    this.client.send({ op: 'commit', chosen, accepted });
  }

  takeCacheMs(): number {
    return 0;
  }

  dispose(): void {
    this.client.send({ op: 'close' });
  }
}
