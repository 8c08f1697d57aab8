/**
 * The vLLM view's live mode, without a browser: which addresses the page may read, a fetch the browser
 * refuses (CORS) or cannot make said plainly, a scrape read per model, windows between scrapes, and a body read
 * no further than the scrape byte limit.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ScrapeError, modelReports, readMetrics, readingDelta } from '../../src/core/vllmMetrics';
import { fetchScrape, liveScrapeUrl, nextLiveState } from '../../src/store/liveScrape';

const fixture = (name: string) => readFileSync(`test/fixtures/vllm/${name}`, 'utf8');
const ORIGIN = 'https://speclab.example';
const serving =
  (text: string, status = 200): typeof fetch =>
  () =>
    Promise.resolve(new Response(text, { status }));

describe('the vLLM view, live', () => {
  it.each([
    ['gpu-box metrics', /is not a URL, such as https:\/\/host:8000\/metrics/],
    ['localhost:8000/metrics', /must be http or https, got localhost:/],
    ['ftp://host/metrics', /must be http or https, got ftp:/],
    [
      'http://10.0.0.5:8000/metrics',
      /http:\/\/10\.0\.0\.5:8000\/metrics: this page may only read https:\/\/ addresses or its own origin \(its Content-Security-Policy\).*npm run import:vllm -- --url http:\/\/10\.0\.0\.5:8000\/metrics reads it from a terminal/,
    ],
  ])('refuses %j before fetching', (text, message) => {
    expect(() => liveScrapeUrl(text, ORIGIN)).toThrow(ScrapeError);
    expect(() => liveScrapeUrl(text, ORIGIN)).toThrow(message);
  });

  it('takes https:// anywhere and http:// on its own origin', () => {
    expect(liveScrapeUrl(' https://gpu-box:8000/metrics ', ORIGIN).href).toBe('https://gpu-box:8000/metrics');
    expect(liveScrapeUrl('http://localhost:5173/metrics', 'http://localhost:5173').href).toBe(
      'http://localhost:5173/metrics',
    );
  });

  it('says plainly when the browser would not let the page read the server, or the server fails', async () => {
    const url = new URL('https://gpu-box:8000/metrics');
    const refused: typeof fetch = () => Promise.reject(new TypeError('Failed to fetch'));
    await expect(fetchScrape(url, refused)).rejects.toThrow(
      'https://gpu-box:8000/metrics: the server did not allow this page to read it (CORS) or is unreachable',
    );
    await expect(fetchScrape(url, serving('busy', 503))).rejects.toThrow('https://gpu-box:8000/metrics: HTTP 503');
    await expect(fetchScrape(url, serving('<html>502 Bad Gateway</html>'))).rejects.toThrow(ScrapeError);
  });

  it('reads each scrape per model, and each window as the delta between two scrapes', async () => {
    const url = new URL('https://gpu-box:8000/metrics');
    const two = await fetchScrape(url, serving(fixture('two-models.prom')));
    expect(modelReports(two).map(({ model }) => model)).toEqual(['big-k4', 'small-k2']);
    const first = nextLiveState(null, await fetchScrape(url, serving(fixture('before.prom'))));
    expect([first.window, first.scrapes]).toEqual([null, 1]);
    const second = nextLiveState(first, await fetchScrape(url, serving(fixture('after.prom'))));
    expect(second.scrapes).toBe(2);
    expect(second.window).toEqual(
      readingDelta(readMetrics(fixture('before.prom')), readMetrics(fixture('after.prom'))),
    );
    // A restart between scrapes (counters went backwards) is the reader's refusal, not a negative window.
    expect(() => nextLiveState(second, readMetrics(fixture('before.prom')))).toThrow(/went backwards/);
  });

  it('stops reading an endless scrape at its first chunk past 8 MiB, with the one-line reason', async () => {
    let pulled = 0;
    // 64 KiB chunks for as long as the reader pulls, with no Content-Length: only the byte limit can stop it.
    const endless: typeof fetch = () =>
      Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              pulled += 65536;
              controller.enqueue(new Uint8Array(65536).fill(120));
            },
          }),
        ),
      );
    const scrape = fetchScrape(new URL('https://gpu-box:8000/metrics'), endless);
    await expect(scrape).rejects.toThrow(ScrapeError);
    await expect(scrape).rejects.toThrow(
      /^https:\/\/gpu-box:8000\/metrics is more than 8388608 bytes, but 8388608 bytes at most were expected \(the most a scrape may be\): the download was stopped$/,
    );
    // The limit plus the one chunk past it, and what the stream queued ahead of the reader.
    expect(pulled).toBeLessThanOrEqual(8 * 1024 * 1024 + 4 * 65536);
  });
});
