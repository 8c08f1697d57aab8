/**
 * The target thread's protocol in one process (a MessageChannel between serveTarget and the client): a run's
 * rows equal a CachedTarget's here, step after step; a request without an open run and a commit's failure are
 * answered with their reason; a thread that is gone fails every waiting and later request instead of hanging.
 */
import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { CachedTarget } from '../../src/engine/pairModels';
import { serveTarget, TargetThreadClient, type ThreadPort } from '../../src/engine/targetThread';
import { bundledPair } from '../support/models';

const channels: MessageChannel[] = [];
afterEach(() => {
  for (const channel of channels.splice(0)) {
    channel.port1.close();
    channel.port2.close();
  }
});

function connected(): { served: ThreadPort; client: TargetThreadClient } {
  const channel = new MessageChannel();
  channels.push(channel);
  return {
    served: channel.port1 as unknown as ThreadPort,
    client: new TargetThreadClient(channel.port2 as unknown as ThreadPort),
  };
}

describe('the target thread, over a message channel', () => {
  it('scores and commits as the target here does, step after step', async () => {
    const { target } = await bundledPair();
    const { served, client } = connected();
    serveTarget(served, target.session);
    const remote = await client.open();
    const here = new CachedTarget(target.session);
    expect([remote.V, remote.scoring]).toEqual([here.V, here.scoring]);
    const context = [5, 17, 29, 41];
    for (let step = 0; step < 4; step++) {
      const drafts = Int32Array.from([7 + step, 11, 13, 3 + step, 19, 2]);
      const [far, near] = [await remote.score(context, drafts, 2, 3), await here.score(context, drafts, 2, 3)];
      expect(far.logits, `step ${step}`).toEqual(near.logits);
      expect(far.scoring).toEqual(near.scoring);
      remote.commit(1, step % 3);
      here.commit(1, step % 3);
      context.push(...drafts.subarray(3, 3 + (step % 3)), 23 + step);
    }
    expect(await remote.targetNext(context)).toEqual(await here.targetNext(context));
    remote.dispose();
    here.dispose();
  });

  it('answers a request without an open run, and a failed commit, with the reason', async () => {
    const { target } = await bundledPair();
    const { served, client } = connected();
    serveTarget(served, target.session);
    await expect(client.request({ op: 'next', context: [1, 2] })).rejects.toThrow(
      'the target thread: no run is open on the target thread',
    );
    const remote = await client.open();
    // A commit of more tokens than the step scored fails on the thread; the next request answers with it.
    await remote.score([1, 2, 3], Int32Array.from([4, 5]), 1, 2);
    remote.commit(0, 7);
    await expect(remote.targetNext([1, 2, 3, 4])).rejects.toThrow(/^the target thread: /);
  });

  it('fails every waiting and later request once the thread is gone', async () => {
    const { client } = connected();
    const waiting = client.request({ op: 'open', treeScoring: true });
    client.lost('exited (code 1)');
    await expect(waiting).rejects.toThrow('the target thread exited (code 1)');
    await expect(client.open()).rejects.toThrow('the target thread exited (code 1)');
  });
});
