/**
 * Offline, the page's service worker answers only the files it keeps: the precache (the bundled pair and head)
 * and what it kept when first loaded (the float32 target). A file the loader asks for beyond its manifest's
 * list (a tokenizer_config.json the bundled models do not have) is a 404 online but a failed load offline,
 * so loading a bundled pair must ask only for manifest.json and the files that manifest lists.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { loadPair, type FileReader, type ModelPairHandle } from '../../src/models/loader';
import { precacheList } from '../../tools/serviceWorkerPlugin';
import { BUNDLED_HEAD_DIR } from '../../tools/bundled';
import { BUNDLED_DRAFT_DIR, BUNDLED_TARGET_DIR, FLOAT_TARGET_DIR, directoryReader, ort } from '../support/models';

/** `dir`'s reader, recording each path it is asked for as `models/<name>/<path>` (the service worker's keys). */
function recordingReader(dir: string, asked: string[]): FileReader {
  const read = directoryReader(dir);
  return (path, onProgress, maxBytes) => {
    asked.push(`${dir.replace(/^public\//, '')}/${path}`);
    return read(path, onProgress, maxBytes);
  };
}

/** manifest.json and the files it lists, as service worker keys. */
function listedFiles(dir: string): string[] {
  const { files } = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: { path: string }[] };
  const folder = dir.replace(/^public\//, '');
  return [`${folder}/manifest.json`, ...files.map((file) => `${folder}/${file.path}`)];
}

let pair: ModelPairHandle | undefined;
afterEach(async () => {
  await pair?.draft.session.release();
  await pair?.target.session.release();
  await pair?.head?.session.release();
  pair = undefined;
});

async function loadRecorded(target: string): Promise<string[]> {
  const asked: string[] = [];
  pair = await loadPair(
    ort,
    {
      draft: recordingReader(BUNDLED_DRAFT_DIR, asked),
      target: recordingReader(target, asked),
      head: recordingReader(BUNDLED_HEAD_DIR, asked),
    },
    'wasm',
  );
  return asked;
}

describe('loading a bundled pair asks only for files the offline cache can answer', () => {
  it('the int8 pair and the head: every file asked for is in the service worker’s precache list', async () => {
    const asked = await loadRecorded(BUNDLED_TARGET_DIR);
    expect(pair?.head).not.toBeNull();
    const precached = new Set(precacheList({}, 'public').files);
    expect(asked.filter((file) => !precached.has(file))).toEqual([]);
  });

  it('the float32 pair: only manifest.json and the files each manifest lists (the worker keeps each as it loads)', async () => {
    const asked = await loadRecorded(FLOAT_TARGET_DIR);
    const listed = new Set([BUNDLED_DRAFT_DIR, FLOAT_TARGET_DIR, BUNDLED_HEAD_DIR].flatMap(listedFiles));
    expect(asked.filter((file) => !listed.has(file))).toEqual([]);
  });
});
